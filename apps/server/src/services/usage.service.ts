import { SOURCES, asksCoveredByBudget, fromMicros, toMicros } from '@cc/contracts';
import type { ChatSource, MyUsage, UsageQuery, UsageReport, UsageRow } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { presentBudget } from '../presenters/budget.presenter';
import { joinSettings } from '../presenters/user.presenter';
import { budgetRow } from '../repositories/user-setting.repository';
import { askLogRepository } from '../repositories/ask-log.repository';
import type { UsageAggregate } from '../repositories/ask-log.repository';
import { csvCell } from './audit.service';
import { statsRange } from './stats.service';
import { getUser } from './user.service';

/** The range a usage query covers when it names no start: the last 30 days. */
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

const int = (v: number | string | null) => (v === null ? 0 : Math.round(Number(v)));
const seconds = (v: number | string | null) => (v === null ? 0 : Math.round(Number(v) * 1000) / 1000);

function presentRow(r: UsageAggregate): UsageRow {
  return {
    user_id: r.user_id === null ? null : Number(r.user_id),
    username: r.username,
    source: r.source as ChatSource | null,
    model: r.model,
    day: r.day,
    asks: int(r.asks),
    input_tokens: int(r.input_tokens),
    output_tokens: int(r.output_tokens),
    estimated_asks: int(r.estimated_asks),
    avg_queue_seconds: seconds(r.avg_queue_seconds),
    avg_answer_seconds: seconds(r.avg_answer_seconds),
    errors: int(r.errors),
    cost: fromMicros(int(r.cost)),
  };
}

/** Asks in the range grouped by user, model or day, summed in the database. */
export async function usageReport(ctx: AppContext, query: UsageQuery): Promise<UsageReport> {
  const endMs = query.end ? Date.parse(query.end) : Date.now();
  const { start, end } = statsRange({
    start_time: query.start ?? new Date(endMs - DEFAULT_DAYS * DAY_MS).toISOString(),
    end_time: new Date(endMs).toISOString(),
  });
  const rows = await askLogRepository(ctx.dbHandle.db).usage(
    { start, end, userId: query.user_id },
    query.group,
  );
  return {
    start,
    end,
    group: query.group,
    currency: ctx.runtime.current().billing.currency,
    rows: rows.map(presentRow),
  };
}

const CSV_COLUMNS = {
  user: ['user_id', 'username'],
  model: ['source', 'model'],
  day: ['day'],
} as const;
const CSV_MEASURES = [
  'asks',
  'input_tokens',
  'output_tokens',
  'estimated_asks',
  'avg_queue_seconds',
  'avg_answer_seconds',
  'errors',
  'cost',
] as const;

/** The same report as CSV with a header row; cells a spreadsheet would run as formulas stay text. */
export async function usageCsv(ctx: AppContext, query: UsageQuery): Promise<string> {
  const report = await usageReport(ctx, query);
  const columns = [...CSV_COLUMNS[report.group], ...CSV_MEASURES];
  const lines = [columns.join(',')];
  for (const row of report.rows) lines.push(columns.map((c) => csvCell(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** The first instant of the current calendar month (UTC) and of the next one. */
export function currentMonth(now: Date): { start: string; end: string } {
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

/** -1 (unlimited) binds only when both are. */
const smaller = (a: number, b: number) => (a < 0 ? b : b < 0 ? a : Math.min(a, b));

/**
 * One user's asks, tokens and cost this calendar month (UTC), the budgets, and the asks left per source and model
 * (the limit that binds: total, the model's own count, or what the budgets still cover).
 */
export async function myUsage(ctx: AppContext, userId: number, now = new Date()): Promise<MyUsage> {
  const { start, end } = currentMonth(now);
  const [rows, loaded] = await Promise.all([
    askLogRepository(ctx.dbHandle.db).usage({ start, end, userId }, 'model'),
    getUser(ctx, userId),
  ]);
  const setting = joinSettings(loaded.setting, loaded.counters);
  const budget = presentBudget(budgetRow(loaded.setting), ctx.runtime.current().billing, now);
  const used = rows.map(presentRow);
  const sources = SOURCES.filter((source) => setting[source].allow_to_use).map((source) => {
    const s = setting[source];
    const perModel = s.per_model_ask_count as Partial<Record<string, number>>;
    const mine = used.filter((r) => r.source === source);
    return {
      source,
      asks: mine.reduce((n, r) => n + r.asks, 0),
      input_tokens: mine.reduce((n, r) => n + r.input_tokens, 0),
      output_tokens: mine.reduce((n, r) => n + r.output_tokens, 0),
      total_remaining: s.total_ask_count,
      models: s.available_models.map((model) => ({
        model,
        remaining: smaller(
          smaller(s.total_ask_count, perModel[model] ?? -1),
          asksCoveredByBudget(budget, model),
        ),
      })),
    };
  });
  return {
    period_start: start,
    period_end: end,
    asks: used.reduce((n, r) => n + r.asks, 0),
    input_tokens: used.reduce((n, r) => n + r.input_tokens, 0),
    output_tokens: used.reduce((n, r) => n + r.output_tokens, 0),
    cost: fromMicros(used.reduce((n, r) => n + toMicros(r.cost), 0)),
    budget,
    sources,
  };
}
