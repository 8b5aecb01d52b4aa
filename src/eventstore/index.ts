// Opens the event log the configuration names: the Postgres/PGlite tables, or an EventStoreDB server.
import path from 'node:path';
import { type Config, ConfigError } from '../config.ts';
import { type Db, redactUrl } from '../db.ts';
import type { EventStore } from './port.ts';
import { PostgresEventStore } from './postgres.ts';
import type { EsdbEventStore } from './esdb.ts';

/** EVENT_STORE names a server that does not answer (or refuses to let us read `$all`); the CLI prints it as one line. */
export class EventLogUnreachableError extends ConfigError {}

/** The event store of `config.eventLog`; for EventStoreDB, checks first that the server answers. `db` keeps the read models either way. */
export async function openEventStore(config: Pick<Config, 'eventLog'>, db: Db): Promise<EventStore> {
  const log = config.eventLog;
  if (log.kind === 'postgres') return new PostgresEventStore(db);
  // Loaded only when configured: the gRPC client is the largest import of the CLI's start-up.
  const { EsdbEventStore: Esdb } = await import('./esdb.ts');
  let store: EsdbEventStore;
  try {
    store = Esdb.fromConnectionString(log.connectionString);
  } catch (err) {
    throw new ConfigError(`invalid configuration:\n  EVENT_STORE: ${errorText(err, log)}`);
  }
  try {
    await store.probe();
  } catch (err) {
    await store.close().catch(() => {});
    throw new EventLogUnreachableError(
      `cannot use the event log EVENT_STORE=${log.display}: ${errorText(err, log)}. Is EventStoreDB 24+ (or KurrentDB) running there, and may this user read $all? See docs/eventstoredb.md.`,
    );
  }
  return store;
}

function errorText(err: unknown, log: { connectionString: string; display: string }): string {
  const text = err instanceof Error ? err.message : String(err);
  const [first = ''] = text.split(log.connectionString).join(log.display).split('\n');
  return first.replace(/\s*Resolution note:\s*$/, '').trim();
}

/** The start-up line that says which log is in use and where the read models are (passwords hidden). */
export function describeEventLog(config: Pick<Config, 'eventLog' | 'databaseUrl' | 'dataDir'>): string {
  const readModels = config.databaseUrl ? `PostgreSQL ${redactUrl(config.databaseUrl)}` : `embedded PGlite in ${path.join(config.dataDir, 'pglite')}`;
  if (config.eventLog.kind === 'postgres') return `event log: ${readModels} (with the read models)`;
  return `event log: EventStoreDB ${config.eventLog.display}; read models and projection checkpoints: ${readModels}`;
}
