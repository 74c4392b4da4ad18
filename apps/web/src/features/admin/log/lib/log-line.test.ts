import { describe, expect, it } from 'vitest';
import { entryMatches, parseLogLine } from './log-line';

const REQUEST = JSON.stringify({
  level: 30,
  time: Date.UTC(2026, 10, 23, 9, 15, 30),
  reqId: 'req-7',
  req: { method: 'GET', url: '/api/user/me', remoteAddress: '127.0.0.1' },
  res: { statusCode: 200 },
  responseTime: 3.2,
  msg: 'request completed',
});

describe('parseLogLine', () => {
  it('reads pino JSON: time, level by name, message, request and the rest as details', () => {
    const e = parseLogLine(REQUEST);
    expect(e).toMatchObject({
      time: Date.UTC(2026, 10, 23, 9, 15, 30),
      level: 'info',
      message: 'request completed',
      request: 'GET /api/user/me → 200',
      raw: REQUEST,
    });
    expect(e.details).toEqual([
      ['reqId', 'req-7'],
      ['responseTime', '3.2'],
      ['req.remoteAddress', '127.0.0.1'],
    ]);
    expect(
      parseLogLine('{"level":50,"time":1,"msg":"boom","err":{"type":"Error","message":"x"}}'),
    ).toMatchObject({
      level: 'error',
      details: [
        ['err.type', 'Error'],
        ['err.message', 'x'],
      ],
    });
  });

  it('keeps a line that is not JSON as its message, guessing the level from its words', () => {
    expect(parseLogLine('WARNING disk almost full')).toMatchObject({
      time: null,
      level: 'warn',
      message: 'WARNING disk almost full',
      request: null,
      details: [],
    });
    expect(parseLogLine('{not json').message).toBe('{not json');
  });

  it('matches a search in the message, the request or the raw line, ignoring case', () => {
    const e = parseLogLine(REQUEST);
    expect(entryMatches(e, 'COMPLETED')).toBe(true);
    expect(entryMatches(e, '/api/user')).toBe(true);
    expect(entryMatches(e, 'req-7')).toBe(true);
    expect(entryMatches(e, '  ')).toBe(true);
    expect(entryMatches(e, 'nothing like it')).toBe(false);
  });
});
