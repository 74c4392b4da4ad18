import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../../config/bootstrap';
import { loadSecrets } from '../../config/secrets';
import { openDb } from '../../db/client';
import { migrationState, PendingMigrationsError, prepareSchema } from '../../db/migrate';
import { createSecretBox } from '../../services/secret-box';
import { formatSummary, importPredecessor } from './import';
import { readDocuments } from './read-documents';
import { readPredecessorSql } from './read-sql';

export const USAGE = `usage: npm run import:predecessor -- --sql <database.db> [--conversations <export.json>]...
         [--ask-logs <export.json>] [--utc-offset <±HH:MM>] [--dry-run]

  --sql             the predecessor's SQLite database (users, settings, conversation records)
  --conversations   a conversation history collection exported from its MongoDB (mongoexport, JSON lines or
                    --jsonArray); give it once per collection (openai_web_…, openai_api_conversation_history)
  --ask-logs        its ask_logs collection, exported the same way
  --utc-offset      the predecessor server's time zone (its time slots were local time); default +00:00
  --dry-run         print what would be imported, write nothing

The target is this server's database (CC_DATA_DIR, config.yaml, CC_DATABASE_URL), as for npm run db:migrate.`;

export class UsageError extends Error {}
/** The inputs or the target are not usable: the message says why (no stack trace). */
export class ImportError extends Error {}

/** "+08:00", "-0530", "+8" → minutes east of UTC. */
export function parseOffset(text: string): number {
  const m = /^([+-])?(\d{1,2})(?::?(\d{2}))?$/.exec(text.trim());
  if (!m) throw new UsageError(`--utc-offset "${text}": expected ±HH:MM`);
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  if (minutes > 14 * 60) throw new UsageError(`--utc-offset "${text}" is out of range`);
  return m[1] === '-' ? -minutes : minutes;
}

export interface CliArgs {
  sql: string;
  conversations: string[];
  askLogs: string | undefined;
  utcOffsetMinutes: number;
  dryRun: boolean;
}

/** Parses the arguments; relative files are taken from the directory the command was typed in. */
export function parseCliArgs(argv: string[], cwd: string): CliArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        sql: { type: 'string' },
        conversations: { type: 'string', multiple: true },
        'ask-logs': { type: 'string' },
        'utc-offset': { type: 'string' },
        'dry-run': { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (!values.sql) throw new UsageError('--sql is required');
  const file = (f: string) => path.resolve(cwd, f);
  return {
    sql: file(values.sql),
    conversations: (values.conversations ?? []).map(file),
    askLogs: values['ask-logs'] ? file(values['ask-logs']) : undefined,
    utcOffsetMinutes: values['utc-offset'] ? parseOffset(values['utc-offset']) : 0,
    dryRun: values['dry-run'] ?? false,
  };
}

/**
 * Runs the import into the configured database and returns the printed summary. Input files are relative to
 * `filesCwd` (where the command was typed); the config is found as the server finds it, from the project root.
 */
export async function runImportCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
  filesCwd: string,
  configCwd = process.cwd(),
): Promise<string> {
  const args = parseCliArgs(argv, filesCwd);
  let data;
  try {
    data = {
      sql: readPredecessorSql(args.sql),
      conversations: args.conversations.flatMap(readDocuments),
      askLogs: args.askLogs ? readDocuments(args.askLogs) : [],
    };
  } catch (e) {
    throw new ImportError(`Cannot read the predecessor's data: ${(e as Error).message}`, { cause: e });
  }
  const config = loadConfig(env, { cwd: configCwd });
  const handle = openDb({ databaseUrl: config.data.database_url, dataDir: config.data.data_dir });
  try {
    let secretBox;
    if (args.dryRun) {
      // Writes nothing at all: no schema, no generated keys (nothing sealed is stored in a dry run).
      const { pending } = await migrationState(handle);
      if (pending.length)
        throw new ImportError(
          'The database is not up to date: run npm run db:migrate (or start the server) first.',
        );
      secretBox = createSecretBox(randomBytes(32).toString('base64url'));
    } else {
      await prepareSchema(handle, config.data.run_migration);
      const secrets = await loadSecrets(config, handle.db);
      secretBox = createSecretBox(secrets.credentialsKey, secrets.previousCredentialsKeys);
    }
    const summary = await importPredecessor({ db: handle.db, secretBox }, data, {
      dryRun: args.dryRun,
      utcOffsetMinutes: args.utcOffsetMinutes,
    });
    return formatSummary(summary);
  } finally {
    await handle.close();
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename);
if (isMain) {
  try {
    console.log(
      await runImportCli(process.argv.slice(2), process.env, process.env.INIT_CWD ?? process.cwd()),
    );
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`${e.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (e instanceof ImportError || e instanceof ConfigError || e instanceof PendingMigrationsError) {
      console.error(e.message);
      process.exitCode = 1;
    } else throw e;
  }
}
