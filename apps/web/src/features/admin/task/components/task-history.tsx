import { Badge, Code, Modal, Text } from '@mantine/core';
import type { TaskRun } from '@cc/contracts';
import { formatDateTime } from '../../../../lib/format';
import { useAdminT } from '../../shared/admin-i18n';
import { DataTable } from '../../shared/data-table';
import type { Column } from '../../shared/data-table';
import { useTaskRuns } from '../api/get-task-runs';
import { runDuration, taskName, taskOutput } from '../lib/task-text';

const TRIGGERS = ['schedule', 'manual', 'startup'] as const;
const isTrigger = (v: string): v is (typeof TRIGGERS)[number] => (TRIGGERS as readonly string[]).includes(v);

/** The latest runs of one task: when, how long, what started it, how it ended and what it said. */
export function TaskHistory({ name, onClose }: { name: string | null; onClose: () => void }) {
  const { ta, language } = useAdminT();
  const runs = useTaskRuns(name);
  const columns: Column<TaskRun>[] = [
    {
      key: 'started',
      header: ta('task.started'),
      render: (run) => <Text size="sm">{formatDateTime(run.start_time, language)}</Text>,
    },
    {
      key: 'duration',
      header: ta('task.duration'),
      render: (run) => <Text size="sm">{runDuration(ta, run.start_time, run.end_time)}</Text>,
    },
    {
      key: 'trigger',
      header: ta('task.trigger'),
      render: (run) => (isTrigger(run.trigger) ? ta(`task.triggers.${run.trigger}`) : run.trigger),
    },
    {
      key: 'status',
      header: ta('common.status'),
      render: (run) => (
        <Badge variant="light" color={run.status === 'success' ? 'green' : 'red'}>
          {ta(`task.statuses.${run.status}`)}
        </Badge>
      ),
    },
    {
      key: 'output',
      header: ta('task.output'),
      render: (run) =>
        run.summary ? (
          <Text size="sm">{taskOutput(ta, run)}</Text>
        ) : (
          <Code block style={{ whiteSpace: 'pre-wrap', maxHeight: 160, overflow: 'auto' }}>
            {run.output || ta('common.none')}
          </Code>
        ),
    },
  ];
  return (
    <Modal
      opened={name !== null}
      onClose={onClose}
      size="xl"
      title={name ? ta('task.historyOf', { name: taskName(ta, name) }) : ''}
    >
      <DataTable
        label={name ? ta('task.historyOf', { name: taskName(ta, name) }) : ''}
        rows={runs.data ?? []}
        columns={columns}
        rowId={(run) => String(run.id)}
        empty={runs.isLoading ? ta('common.loading') : ta('task.historyEmpty')}
        error={runs.error}
        onRetry={() => void runs.refetch()}
        retrying={runs.isFetching}
      />
    </Modal>
  );
}
