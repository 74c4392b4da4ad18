import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from './schema';

/** A database or an open transaction. */
type Executor = Kysely<Database>;

/**
 * Queries built and compiled once, then run with new values. Kysely builds an immutable query tree and compiles it
 * to SQL at every execute (~20–60 µs a statement on this project's machines; an ask runs ~15 statements): for the
 * statements every ask runs, that was the largest part of the database's JavaScript. The SQLite connection already
 * keeps its prepared statements (db/client.ts); this keeps the SQL text and where each value goes.
 *
 * A build receives the values as placeholders: it must only hand them to kysely (as values of `set`, `values`,
 * `where`, or parameters of a `sql` template), never look into them or turn them into text — each template is
 * checked for that when it is made.
 */

/**
 * A query of fixed shape. A value may not be `undefined` when it runs (a column kysely would have left out must be
 * given by the caller, or the query is a `preparedRow`).
 */
export function prepared<V extends object, R>(
  build: (db: Executor, values: V) => Compilable<R>,
): Prepared<V, R> {
  const statement = new Template<R>((db, placeholder) => build(db, byName(placeholder)));
  const compiled = (db: Executor, values: V) =>
    statement.compiled(db, (name) => {
      const value = (values as Record<string, unknown>)[name];
      if (value === undefined) throw new Error(`prepared query: no value for "${name}"`);
      return value;
    });
  return withResults(compiled);
}

/**
 * A query whose columns follow the keys of a row (an insert of a row, an update of a patch) or of several rows (an
 * insert of several): one template per set of keys (a key whose value is `undefined` is left out, as kysely does)
 * and number of rows, with named values besides (`params`, fixed, as in `prepared`).
 */
export function preparedRow<P extends object, V extends object, R>(
  build: (db: Executor, params: P, row: V) => Compilable<R>,
): PreparedRow<P, V, R> {
  const shapes = new Map<string, Template<R>>();
  const compiled = (db: Executor, params: P, row: V): CompiledQuery<R> => {
    const rows: object[] = Array.isArray(row) ? row : [row];
    // A value that is itself SQL (`sql\`count + 1\``, a subquery) is part of the statement: built as usual.
    if (rows.some((r) => Object.values(r).some(isExpression))) return build(db, params, row).compile();
    const keys = rows.map((r) => Object.keys(r).filter((k) => r[k as keyof typeof r] !== undefined));
    const shape = `${Array.isArray(row) ? rows.length : ''}:${keys.map((k) => k.join(',')).join(';')}`;
    let statement = shapes.get(shape);
    if (!statement) {
      statement = new Template<R>((db, placeholder) => {
        const placed = keys.map((k, i) =>
          Object.fromEntries(k.map((key) => [key, placeholder(`r:${i}:${key}`)])),
        );
        return build(
          db,
          byName<P>((name) => placeholder(`p:${name}`)),
          (Array.isArray(row) ? placed : placed[0]) as V,
        );
      });
      // The sets of keys come from the code, not from users: a few per query. A bound all the same.
      if (shapes.size >= MAX_SHAPES) shapes.delete(shapes.keys().next().value!);
      shapes.set(shape, statement);
    }
    return statement.compiled(db, (name) => {
      if (name.startsWith('r:')) {
        const at = name.indexOf(':', 2);
        return (rows[Number(name.slice(2, at))] as Record<string, unknown>)[name.slice(at + 1)];
      }
      const value = (params as Record<string, unknown>)[name.slice(2)];
      if (value === undefined) throw new Error(`prepared query: no value for "${name.slice(2)}"`);
      return value;
    });
  };
  return withResults(compiled);
}

/** The named values of a `preparedRow` that has none besides its row: `{}`. */
export type NoParams = Record<string, never>;

/** A prepared query's ways to run. */
export interface Runs<A extends unknown[], R> {
  run(db: Executor, ...args: A): Promise<QueryResult<R>>;
  /** The rows it returns (a select, or `returning`). */
  rows(db: Executor, ...args: A): Promise<R[]>;
  first(db: Executor, ...args: A): Promise<R | undefined>;
  /** How many rows an insert, update or delete changed. */
  changed(db: Executor, ...args: A): Promise<number>;
  /** The query as it runs. */
  compiled(db: Executor, ...args: A): CompiledQuery<R>;
}

export type Prepared<V, R> = Runs<[values: V], R>;
export type PreparedRow<P, V, R> = Runs<[params: P, row: V], R>;

const MAX_SHAPES = 64;

function withResults<A extends unknown[], R>(
  compiled: (db: Executor, ...args: A) => CompiledQuery<R>,
): Runs<A, R> {
  return {
    run: (db, ...args) => db.executeQuery(compiled(db, ...args)),
    async rows(db, ...args) {
      return (await db.executeQuery(compiled(db, ...args))).rows;
    },
    async first(db, ...args) {
      return (await db.executeQuery(compiled(db, ...args))).rows[0];
    },
    async changed(db, ...args) {
      return Number((await db.executeQuery(compiled(db, ...args))).numAffectedRows ?? 0);
    },
    compiled,
  };
}

const NAME = Symbol('prepared value');

interface Placeholder {
  readonly [NAME]: string;
}

function isPlaceholder(value: unknown): value is Placeholder {
  return typeof value === 'object' && value !== null && NAME in value;
}

function isExpression(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toOperationNode?: unknown }).toOperationNode === 'function'
  );
}

/** An object whose every property is the placeholder of that name. */
function byName<V>(placeholder: (name: string) => Placeholder): V {
  return new Proxy(
    {},
    {
      get: (_, name) => (typeof name === 'string' ? placeholder(name) : undefined),
    },
  ) as V;
}

/** One statement's compiled text and where each value goes, per database kind. */
class Template<R> {
  // The text differs between SQLite and PostgreSQL: one per adapter (shared by a database and its transactions).
  private readonly compiledBy = new WeakMap<object, Compiled<R>>();

  constructor(
    private readonly build: (db: Executor, placeholder: (name: string) => Placeholder) => Compilable<R>,
  ) {}

  compiled(db: Executor, valueOf: (name: string) => unknown): CompiledQuery<R> {
    const adapter = db.getExecutor().adapter;
    let template = this.compiledBy.get(adapter);
    if (!template) {
      template = this.compile(db);
      this.compiledBy.set(adapter, template);
    }
    const { slots } = template;
    const parameters = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      parameters[i] = slot.name === null ? slot.constant : valueOf(slot.name);
    }
    return { sql: template.sql, query: template.query, queryId: template.queryId, parameters };
  }

  private compile(db: Executor): Compiled<R> {
    const made = new Set<string>();
    const query = this.build(db, (name) => {
      made.add(name);
      return Object.freeze({ [NAME]: name });
    }).compile();
    const slots = query.parameters.map((p) =>
      isPlaceholder(p) ? { name: p[NAME], constant: null } : { name: null, constant: p },
    );
    const bound = new Set(slots.map((s) => s.name));
    const lost = [...made].filter((name) => !bound.has(name));
    if (lost.length > 0 || query.sql.includes('[object Object]')) {
      throw new Error(
        `prepared query: values used other than as parameters (${lost.join(', ')}): ${query.sql}`,
      );
    }
    return { sql: query.sql, query: query.query, queryId: query.queryId, slots };
  }
}

interface Compiled<R> {
  sql: string;
  query: CompiledQuery<R>['query'];
  queryId: CompiledQuery<R>['queryId'];
  /** Each parameter: a value's name, or (name null) a constant of the query itself. */
  slots: { name: string | null; constant: unknown }[];
}
