// The one long-lived connection a process keeps to PostgreSQL beside its pool: it LISTENs on every channel the
// process uses (the log's appends, the projection checkpoints) and, in a projector, is the presence marker the CLI
// looks for. One connection instead of three makes the pool budget simple: DATABASE_POOL_MAX covers the pool and it.
// Its application_name says what it does (`core-server listener: log checkpoints projector`): how another process
// sees whether anyone listens on a channel, and whether a projector runs.
import pg from 'pg';
import type { Db } from './db.ts';

/** What a listener connection can be for; its application_name lists them in this order. */
export type ListenerTag = 'log' | 'checkpoints' | 'projector';
const TAG_ORDER: ListenerTag[] = ['log', 'checkpoints', 'projector'];
/** The start of every listener connection's application_name. */
export const LISTENER_PREFIX = 'core-server listener:';
/** After a lost connection, how soon a projector's presence is restored (channels reconnect on their next use). */
const RECONNECT_MS = 1000;

/** SQL (a boolean expression over pg_stat_activity) true for a connection that holds `tag`, given as the next parameter. */
export function holdsTag(param: string): string {
  return `application_name like '${LISTENER_PREFIX}%' and (application_name || ' ') like '% ' || ${param} || ' %'`;
}

type Handler = (payload: string) => void;

/** The shared LISTEN connection of one Db (one per pool, so per process). */
export class SharedListener {
  private client?: pg.Client;
  private connecting?: Promise<void>;
  private ready = false;
  private ownPid: number | null = null;
  private readonly channels = new Map<string, { tag: ListenerTag; handlers: Set<Handler> }>();
  private readonly tags = new Map<ListenerTag, number>();
  private users = 0;
  private retry?: NodeJS.Timeout;

  constructor(private readonly url: string) {}

  /** Whether the connection is up and listening on every channel asked for. */
  get listening(): boolean {
    return this.ready;
  }

  /** Whether a connection exists or is being made. */
  get started(): boolean {
    return this.client !== undefined;
  }

  /** application_name of the connection as it is now. */
  name(): string {
    return `${LISTENER_PREFIX} ${TAG_ORDER.filter((t) => (this.tags.get(t) ?? 0) > 0).join(' ')}`.trimEnd();
  }

  /** One more user (a channel, a presence): the connection closes when the last one leaves. */
  use(): void {
    this.users++;
  }

  /** Adds `tag` to the connection's name (while held; `release` takes it back). */
  async hold(tag: ListenerTag): Promise<void> {
    this.tags.set(tag, (this.tags.get(tag) ?? 0) + 1);
    if (this.ready) await this.rename();
  }

  async releaseTag(tag: ListenerTag): Promise<void> {
    const n = (this.tags.get(tag) ?? 0) - 1;
    if (n > 0) this.tags.set(tag, n);
    else this.tags.delete(tag);
    if (this.ready) await this.rename();
  }

  /** Calls `fn` with the payload of every NOTIFY on `channel` from another process. */
  subscribe(channel: string, tag: ListenerTag, fn: Handler): void {
    let c = this.channels.get(channel);
    if (!c) this.channels.set(channel, (c = { tag, handlers: new Set() }));
    c.handlers.add(fn);
  }

  unsubscribe(channel: string, fn: Handler): void {
    this.channels.get(channel)?.handlers.delete(fn);
  }

  /** Connects (once; again after a lost connection) and listens on every subscribed channel. Failure: not listening, a later call tries again. */
  async listen(): Promise<void> {
    if (this.users === 0) return;
    if (this.client) {
      await this.connecting;
      if (this.ready) await this.listenAll();
      return;
    }
    this.named = this.name();
    const client = new pg.Client({ connectionString: this.url, application_name: this.named });
    this.client = client;
    client.on('notification', (msg) => {
      if (msg.processId === this.ownPid) return; // this process's own NOTIFY: its peers were told directly
      for (const fn of this.channels.get(msg.channel)?.handlers ?? []) fn(msg.payload ?? '');
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.ready = false;
      // A projector's presence must come back by itself (the CLI looks for it); channels reconnect on their next use.
      if (this.users > 0 && this.tags.has('projector') && !this.retry) {
        this.retry = setTimeout(() => {
          this.retry = undefined;
          void this.listen();
        }, RECONNECT_MS);
        this.retry.unref();
      }
    };
    client.on('error', lost);
    client.on('end', lost);
    this.connecting = (async () => {
      try {
        await client.connect();
        // NOTIFYs sent on this connection commit asynchronously: a notification only shortens a wait.
        await this.send(client, 'set synchronous_commit = off');
        this.ownPid = (await this.send<{ pid: number }>(client, 'select pg_backend_pid() as pid')).rows[0]?.pid ?? null;
        this.listened.clear();
        this.ready = this.client === client;
        if (this.ready) {
          await this.listenAll();
          if (this.name() !== this.named) await this.rename();
        }
      } catch {
        if (this.client === client) lost();
        this.ready = false;
        await client.end().catch(() => {});
      }
    })();
    await this.connecting;
  }

  private readonly listened = new Set<string>();
  private named = '';

  private async listenAll(): Promise<void> {
    const client = this.client;
    if (!client) return;
    for (const channel of this.channels.keys()) {
      if (this.listened.has(channel)) continue;
      this.listened.add(channel);
      await this.send(client, `listen ${channel}`);
    }
  }

  private async rename(): Promise<void> {
    const name = this.name();
    this.named = name;
    if (this.client) await this.send(this.client, 'select set_config($1, $2, false)', ['application_name', name]).catch(() => {});
  }

  /** Runs `sql` on the listener connection (a NOTIFY: it takes no pool connection); null when it is not up. */
  query<R extends pg.QueryResultRow>(sql: string, args: unknown[]): Promise<R[]> | null {
    if (!this.ready || !this.client) return null;
    return this.send<R>(this.client, sql, args).then((r) => r.rows);
  }

  // One query at a time on the connection: node-postgres queues a query sent while another runs, but warns that pg@9 will not
  // (the suites' "already executing a query" DeprecationWarning: NOTIFYs, LISTENs and renames overlapping on this connection).
  private turn: Promise<unknown> = Promise.resolve();
  private send<R extends pg.QueryResultRow>(client: pg.Client, sql: string, args?: unknown[]): Promise<pg.QueryResult<R>> {
    const run = this.turn.then(() => client.query<R>(sql, args));
    this.turn = run.catch(() => {});
    return run;
  }

  /** One user leaves; the last one closes the connection. */
  async leave(): Promise<void> {
    this.users = Math.max(0, this.users - 1);
    if (this.users > 0) return;
    clearTimeout(this.retry);
    this.retry = undefined;
    const client = this.client;
    this.client = undefined;
    this.ready = false;
    await this.connecting?.catch(() => {});
    await client?.end().catch(() => {});
  }
}

const shared = new WeakMap<Db, SharedListener>();

/** The listener connection of `db` (Postgres only). */
export function sharedListener(db: Db): SharedListener {
  if (!db.url) throw new Error('sharedListener: PostgreSQL only');
  let l = shared.get(db);
  if (!l) shared.set(db, (l = new SharedListener(db.url)));
  return l;
}
