import { Badge, Button, Group, Select, Stack, Switch, TagsInput, Text, TextInput } from '@mantine/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import { LoadError } from '../../../../components/load-error';
import { useAdminT } from '../../shared/admin-i18n';
import { numberProblem } from '../../shared/number-check';
import { NumberField } from '../../shared/number-field';
import { useServerLogs } from '../api/get-server-logs';
import { entryMatches, parseLogLine } from '../lib/log-line';
import type { LogEntry, LogLevel } from '../lib/log-line';
import { RefreshButton } from '../../shared/refresh-button';

/** The API's bounds of max_lines. */
const MAX_LINES_RULE = { min: 1, max: 5000, integer: true } as const;

const LEVEL_COLORS: Record<LogLevel, string> = {
  trace: 'gray',
  debug: 'gray',
  info: 'blue',
  warn: 'orange',
  error: 'red',
  fatal: 'red',
};

/** Time with seconds in the reader's zone and language. */
function entryTime(time: number, language: string): string {
  return new Intl.DateTimeFormat(language, {
    dateStyle: 'short',
    timeStyle: 'medium',
    hourCycle: 'h23',
  }).format(new Date(time));
}

function Entry({ entry, language }: { entry: LogEntry; language: string }) {
  const { ta } = useAdminT();
  return (
    <div
      data-testid="log-entry"
      style={{ padding: '2px 0', borderBottom: '1px solid var(--mantine-color-default-border)' }}
    >
      <Group gap={8} wrap="nowrap" align="flex-start">
        {entry.time !== null && (
          <Text span size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
            {entryTime(entry.time, language)}
          </Text>
        )}
        {entry.level && (
          <Badge size="xs" variant="light" color={LEVEL_COLORS[entry.level]} style={{ flexShrink: 0 }}>
            {ta(`log.levels.${entry.level}`)}
          </Badge>
        )}
        <Text
          span
          size="xs"
          data-testid="log-message"
          style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}
        >
          {entry.message}
        </Text>
        {entry.request && (
          <Text span size="xs" ff="monospace" c="dimmed" style={{ wordBreak: 'break-all' }}>
            {entry.request}
          </Text>
        )}
      </Group>
      {entry.details.length > 0 && (
        <details>
          <summary style={{ cursor: 'pointer', fontSize: 11 }}>{ta('log.details')}</summary>
          <dl style={{ margin: '2px 0 4px 16px', fontSize: 11 }}>
            {entry.details.map(([key, value]) => (
              <div key={key} style={{ display: 'flex', gap: 8 }}>
                <dt style={{ fontFamily: 'var(--mantine-font-family-monospace)' }}>{key}</dt>
                <dd style={{ margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>{value}</dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </div>
  );
}

/** Saves the lines as a .log file (as the server wrote them). */
function download(lines: readonly string[]): void {
  const url = URL.createObjectURL(new Blob([lines.join('\n') + '\n'], { type: 'text/plain' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `server-${new Date().toISOString().replace(/[:.]/g, '-')}.log`;
  a.click();
  URL.revokeObjectURL(url);
}

/** The server log: last N lines without excluded keywords, optional polling, stays at the bottom when asked. */
export function ServerLog() {
  const { ta, language } = useAdminT();
  const [search, setSearch] = useState('');
  const [maxLines, setMaxLines] = useState<number>(100);
  const [exclude, setExclude] = useState<string[]>(['/api/status', '/api/system/logs']);
  const [interval, setIntervalValue] = useState<string>('0');
  const [autoScroll, setAutoScroll] = useState(true);
  const query = useMemo(
    () => ({
      // A refused number shows its error and the default applies meanwhile.
      max_lines: numberProblem(maxLines, MAX_LINES_RULE) ? 100 : maxLines,
      exclude_keywords: exclude,
    }),
    [maxLines, exclude],
  );
  const logs = useServerLogs(query, interval === '0' ? false : Number(interval) * 1000);
  const box = useRef<HTMLDivElement>(null);
  const entries = useMemo(() => (logs.data ?? []).map(parseLogLine), [logs.data]);
  const shown = useMemo(() => entries.filter((e) => entryMatches(e, search)), [entries, search]);

  useEffect(() => {
    if (autoScroll && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [shown, autoScroll]);

  return (
    <Stack gap="sm">
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          label={ta('log.search')}
          type="search"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          w={220}
        />
        <NumberField
          label={ta('log.maxLines')}
          {...MAX_LINES_RULE}
          step={100}
          value={maxLines}
          onChange={setMaxLines}
          w={140}
        />
        <TagsInput
          label={ta('log.excludeKeywords')}
          description={ta('log.excludeHint')}
          value={exclude}
          onChange={setExclude}
          clearable
          w={380}
        />
        <Select
          label={ta('log.refreshInterval')}
          data={[
            { value: '0', label: ta('log.manual') },
            { value: '3', label: '3 s' },
            { value: '5', label: '5 s' },
            { value: '10', label: '10 s' },
          ]}
          value={interval}
          allowDeselect={false}
          onChange={(v) => setIntervalValue(v ?? '0')}
          w={120}
        />
        <Switch
          mb={8}
          label={ta('log.autoScroll')}
          checked={autoScroll}
          onChange={(e) => setAutoScroll(e.currentTarget.checked)}
        />
        <RefreshButton query={logs} />
        <Button
          variant="default"
          disabled={shown.length === 0}
          onClick={() => download(shown.map((e) => e.raw))}
        >
          {ta('log.download')}
        </Button>
      </Group>
      {logs.error && (
        <LoadError error={logs.error} onRetry={() => void logs.refetch()} retrying={logs.isFetching} />
      )}
      <Text size="xs" c="dimmed">
        {search.trim()
          ? ta('log.matchCount', { count: shown.length, total: entries.length })
          : ta('log.lineCount', { count: entries.length })}
      </Text>
      <div
        ref={box}
        role="region"
        data-testid="server-log"
        aria-label={ta('log.serverTab')}
        tabIndex={0}
        style={{
          height: 'calc(100dvh - 330px)',
          minHeight: 240,
          overflow: 'auto',
          lineHeight: 1.5,
          padding: 8,
          border: '1px solid var(--mantine-color-default-border)',
          borderRadius: 4,
        }}
      >
        {shown.map((entry, i) => (
          <Entry key={i} entry={entry} language={language} />
        ))}
      </div>
    </Stack>
  );
}
