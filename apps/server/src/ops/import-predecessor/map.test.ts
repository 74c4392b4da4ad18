import { describe, expect, it } from 'vitest';
import { parseOffset } from './cli';
import { mapTimeSlots, toIso, toUuid } from './map';
import { decodeExtendedJson } from './read-documents';

describe('predecessor values', () => {
  it('reads its times as UTC: naive SQL text, ISO with an offset, epoch seconds, extended JSON dates', () => {
    expect(toIso('2024-02-01 10:05:00.123456')).toBe('2024-02-01T10:05:00.123Z');
    expect(toIso('2024-02-01T10:05:00')).toBe('2024-02-01T10:05:00.000Z');
    expect(toIso('2024-02-01T18:05:00+08:00')).toBe('2024-02-01T10:05:00.000Z');
    expect(toIso(1706860800.5)).toBe('2024-02-02T08:00:00.500Z');
    expect(toIso(decodeExtendedJson({ $date: { $numberLong: '1706860800000' } }))).toBe(
      '2024-02-02T08:00:00.000Z',
    );
    expect(toIso('not a date')).toBeNull();
    expect(toIso(null)).toBeNull();
  });

  it('moves local time slots to UTC, wrapping past midnight; the whole-day slot means any time', () => {
    const slot = (start_time: string, end_time: string) => ({ start_time, end_time });
    expect(mapTimeSlots([slot('06:00:00', '10:00:00')], parseOffset('+08:00'))).toEqual([
      slot('22:00:00', '02:00:00'),
    ]);
    expect(mapTimeSlots([slot('22:00:00', '23:30:00')], parseOffset('-05:00'))).toEqual([
      slot('03:00:00', '04:30:00'),
    ]);
    expect(mapTimeSlots([slot('00:00:00', '23:59:59')], parseOffset('+08:00'))).toEqual([]);
    expect(() => parseOffset('8 hours')).toThrow('--utc-offset');
  });

  it('writes uuids dashed, as the documents do', () => {
    expect(toUuid('AAAAAAAABBBBCCCCDDDDEEEEEEEEEEEE')).toBe('aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee');
    expect(toUuid('aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee')).toBe('aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee');
  });
});
