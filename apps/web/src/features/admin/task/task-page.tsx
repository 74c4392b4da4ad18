import { Alert, Badge, Button, Code, Group, Popover, Stack, Switch, Text, Tooltip } from '@mantine/core';
import type { TaskRead, TaskRun } from '@cc/contracts';
import { useState } from 'react';
import { formatDateTime, formatRelative } from '../../../lib/format';
import { AdminPage } from '../shared/admin-page';
import { useAdminT } from '../shared/admin-i18n';
import { DataTable } from '../shared/data-table';
import type { Column } from '../shared/data-table';
import { notifySuccess } from '../shared/notify';
import { numberProblem } from '../shared/number-check';
import { NumberField } from '../shared/number-field';
import { useTasks } from './api/get-tasks';
import { useRunTask } from './api/run-task';
import { useUpdateTask } from './api/update-task';
import { TaskHistory } from './components/task-history';
import { isBuiltinTask, taskName, taskOutput } from './lib/task-text';
import { RefreshButton } from '../shared/refresh-button';

const STATUS_COLORS = { idle: 'gray', running: 'blue', success: 'green', failed: 'red' } as const;

type IntervalUnit = 'd' | 'h' | 'min' | 's';

/** "1 h 30 min" style interval text; `unit` words each part in the current language. */
export function formatInterval(seconds: number, unit: (name: IntervalUnit, count: number) => string): string {
  const parts: [IntervalUnit, number][] = [
    ['d', Math.floor(seconds / 86_400)],
    ['h', Math.floor((seconds % 86_400) / 3600)],
    ['min', Math.floor((seconds % 3600) / 60)],
    ['s', seconds % 60],
  ];
  const shown = parts.filter(([, n]) => n > 0).map(([name, n]) => unit(name, n));
  return shown.join(' ') || unit('s', 0);
}

/** The contract's bounds of a task interval (TaskUpdate.interval_seconds). */
const INTERVAL_RULE = { min: 1, max: 2_592_000, integer: true } as const;

function IntervalEditor({ task }: { task: TaskRead }) {
  const { ta } = useAdminT();
  const update = useUpdateTask();
  const [value, setValue] = useState<number>(task.interval_seconds);
  const [opened, setOpened] = useState(false);
  return (
    <Popover opened={opened} onChange={setOpened} trapFocus withArrow>
      <Popover.Target>
        <Button size="compact-sm" variant="subtle" onClick={() => setOpened((o) => !o)}>
          {ta('task.every', {
            interval: formatInterval(task.interval_seconds, (name, count) =>
              ta(`task.units.${name}`, { count }),
            ),
          })}
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs">
          <NumberField
            label={ta('task.intervalSeconds')}
            {...INTERVAL_RULE}
            value={value}
            onChange={setValue}
          />
          <Button
            size="xs"
            loading={update.isPending}
            disabled={numberProblem(value, INTERVAL_RULE) !== null}
            onClick={() =>
              void update
                .mutateAsync({ name: task.name, patch: { interval_seconds: value } })
                .then(() => setOpened(false))
            }
          >
            {ta('common.save')}
          </Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

/** /admin/task: scheduled tasks with their schedule, state and last output; enable, change interval, run now. */
export function TaskPage() {
  const { ta, t, language } = useAdminT();
  const tasks = useTasks();
  const run = useRunTask();
  const update = useUpdateTask();
  const [lastRun, setLastRun] = useState<TaskRun | null>(null);
  const [history, setHistory] = useState<string | null>(null);

  const handleRun = async (name: string) => {
    const result = await run.mutateAsync(name);
    setLastRun(result);
    notifySuccess(ta('task.ran', { name: taskName(ta, name) }));
  };
  const time = (value: string | null) =>
    value ? (
      <Tooltip label={formatDateTime(value, language)}>
        <Text size="sm">{formatRelative(value, language)}</Text>
      </Tooltip>
    ) : (
      <Text size="sm" c="dimmed">
        {ta('common.never')}
      </Text>
    );

  const columns: Column<TaskRead>[] = [
    {
      key: 'name',
      header: ta('task.name'),
      sort: (a, b) => a.name.localeCompare(b.name),
      render: (task) => (
        <div>
          <Text size="sm" fw={600}>
            {taskName(ta, task.name)}
          </Text>
          <Text size="xs" c="dimmed">
            {isBuiltinTask(task.name) ? ta(`task.descriptions.${task.name}`) : task.description}
          </Text>
        </div>
      ),
    },
    {
      key: 'schedule',
      header: ta('task.schedule'),
      render: (task) => <IntervalEditor key={task.interval_seconds} task={task} />,
    },
    {
      key: 'enabled',
      header: ta('task.enabled'),
      render: (task) => (
        <Switch
          aria-label={ta('task.enabledOf', { name: taskName(ta, task.name) })}
          checked={task.enabled}
          disabled={update.isPending}
          onChange={(e) =>
            void update.mutateAsync({ name: task.name, patch: { enabled: e.currentTarget.checked } })
          }
        />
      ),
    },
    { key: 'last', header: ta('task.lastRun'), render: (task) => time(task.last_run_time) },
    {
      key: 'next',
      header: ta('task.nextRun'),
      render: (task) => (task.enabled ? time(task.next_run_time) : '—'),
    },
    {
      key: 'status',
      header: ta('common.status'),
      render: (task) => (
        <Badge variant="light" color={STATUS_COLORS[task.status]}>
          {ta(`task.statuses.${task.status}`)}
        </Badge>
      ),
    },
    {
      key: 'output',
      header: ta('task.output'),
      width: 320,
      render: (task) => {
        const output = taskOutput(ta, task);
        return output ? (
          <Text
            size="xs"
            ff={task.summary ? undefined : 'monospace'}
            lineClamp={3}
            title={output}
            style={{ whiteSpace: 'pre-wrap' }}
          >
            {output}
          </Text>
        ) : (
          <Text size="sm" c="dimmed">
            {ta('common.none')}
          </Text>
        );
      },
    },
    {
      key: 'actions',
      header: ta('common.actions'),
      sticky: true,
      render: (task) => (
        <Group gap="xs" wrap="nowrap">
          <Button
            size="compact-sm"
            variant="light"
            aria-label={ta('task.runOf', { name: taskName(ta, task.name) })}
            loading={run.isPending && run.variables === task.name}
            disabled={task.status === 'running'}
            onClick={() => void handleRun(task.name)}
          >
            {ta('task.runNow')}
          </Button>
          <Button
            size="compact-sm"
            variant="default"
            aria-label={ta('task.historyOf', { name: taskName(ta, task.name) })}
            onClick={() => setHistory(task.name)}
          >
            {ta('task.history')}
          </Button>
        </Group>
      ),
    },
  ];

  return (
    <AdminPage title={t('admin.taskTitle')} actions={<RefreshButton query={tasks} />}>
      {lastRun && (
        <Alert
          color={lastRun.status === 'success' ? 'green' : 'red'}
          title={ta('task.runResult', {
            name: taskName(ta, lastRun.name),
            status: ta(`task.statuses.${lastRun.status}`),
          })}
          withCloseButton
          onClose={() => setLastRun(null)}
          data-testid="task-run-result"
        >
          <Group gap="xs" mb={4}>
            <Text size="xs" c="dimmed">
              {formatDateTime(lastRun.start_time, language)} → {formatDateTime(lastRun.end_time, language)}
            </Text>
          </Group>
          {lastRun.summary ? (
            <Text size="sm">{taskOutput(ta, lastRun)}</Text>
          ) : (
            <Code block>{lastRun.output || ta('common.none')}</Code>
          )}
        </Alert>
      )}
      <DataTable
        label={t('admin.taskTitle')}
        rows={tasks.data ?? []}
        columns={columns}
        rowId={(task) => task.name}
        minWidth={1100}
        empty={tasks.isLoading ? ta('common.loading') : undefined}
        error={tasks.error}
        onRetry={() => void tasks.refetch()}
        retrying={tasks.isFetching}
      />
      <TaskHistory name={history} onClose={() => setHistory(null)} />
    </AdminPage>
  );
}
