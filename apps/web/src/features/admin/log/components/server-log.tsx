import { Button, Group, Select, Stack, Switch, TagsInput, Text } from '@mantine/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import { RefreshIcon } from '../../../../components/icons';
import { LoadError } from '../../../../components/load-error';
import { useAdminT } from '../../shared/admin-i18n';
import { numberProblem } from '../../shared/number-check';
import { NumberField } from '../../shared/number-field';
import { useServerLogs } from '../api/get-server-logs';

/** The API's bounds of max_lines. */
const MAX_LINES_RULE = { min: 1, max: 5000, integer: true } as const;

const LEVEL_COLORS: [RegExp, string][] = [
  [/\b(ERROR|CRITICAL|FATAL)\b/, 'var(--mantine-color-red-6)'],
  [/\bWARN(ING)?\b/, 'var(--mantine-color-orange-6)'],
  [/\bDEBUG\b/, 'var(--mantine-color-dimmed)'],
];

function lineColor(line: string): string | undefined {
  return LEVEL_COLORS.find(([re]) => re.test(line))?.[1];
}

/** The server log: last N lines without excluded keywords, optional polling, stays at the bottom when asked. */
export function ServerLog() {
  const { ta } = useAdminT();
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
  const box = useRef<HTMLPreElement>(null);

  useEffect(() => {
    if (autoScroll && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [logs.data, autoScroll]);

  return (
    <Stack gap="sm">
      <Group gap="sm" align="flex-end" wrap="wrap">
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
        <Button
          variant="default"
          leftSection={<RefreshIcon size={16} />}
          loading={logs.isFetching}
          onClick={() => void logs.refetch()}
        >
          {ta('common.refresh')}
        </Button>
      </Group>
      {logs.error && (
        <LoadError error={logs.error} onRetry={() => void logs.refetch()} retrying={logs.isFetching} />
      )}
      <Text size="xs" c="dimmed">
        {ta('log.lineCount', { count: logs.data?.length ?? 0 })}
      </Text>
      <pre
        ref={box}
        data-testid="server-log"
        aria-label={ta('log.serverTab')}
        tabIndex={0}
        style={{
          margin: 0,
          height: 'calc(100dvh - 330px)',
          minHeight: 240,
          overflow: 'auto',
          fontSize: 12,
          lineHeight: 1.5,
          padding: 8,
          border: '1px solid var(--mantine-color-default-border)',
          borderRadius: 4,
          fontFamily: 'var(--mantine-font-family-monospace)',
        }}
      >
        {(logs.data ?? []).map((line, i) => (
          <div key={i} style={{ color: lineColor(line), whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
            {line}
          </div>
        ))}
      </pre>
    </Stack>
  );
}
