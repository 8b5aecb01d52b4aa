// A NOTIFY channel between the service's processes on one PostgreSQL database: one LISTEN connection per
// channel and process, and NOTIFYs coalesced and sent only while another process listens. PGlite lives in
// one process: there the channels on one database are told directly. Polling stays the guarantee; a
// notification only shortens a wait.
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Db } from './db.ts';

/** How long a finding that no other process listens is trusted (a new listener polls meanwhile). */
const LISTENERS_CHECK_MS = 1000;
/** NOTIFYs of one burst (appends, projection commits) go out as one. */
const COALESCE_MS = 5;

/** PGlite's listening channels, by database and channel name. */
const local = new WeakMap<Db, Map<string, Set<DbChannel>>>();

function localPeers(db: Db, channel: string): Set<DbChannel> {
  let byName = local.get(db);
  if (!byName) local.set(db, (byName = new Map()));
  let peers = byName.get(channel);
  if (!peers) byName.set(channel, (peers = new Set()));
  return peers;
}

export class DbChannel {
  private readonly emitter = new EventEmitter();
  private client?: pg.Client;
  private ready = false;
  private sending = false;
  private sendAgain = false;
  private timer?: NodeJS.Timeout;
  private othersListen = true;
  private checkedAt = 0;
  private closed = false;

  /** `listenerName` is the application_name of the LISTEN connections: how a process sees whether another listens. */
  constructor(
    private readonly db: Db,
    private readonly channel: string,
    private readonly listenerName: string,
  ) {
    this.emitter.setMaxListeners(0);
  }

  /** Whether this process has started (or tried to start) listening. */
  get started(): boolean {
    return this.client !== undefined || this.ready;
  }

  /** Whether the LISTEN connection is up: other processes' notifications reach this one. */
  get listening(): boolean {
    return this.ready;
  }

  /** Calls `fn` with the payload of every notification another process sends. */
  onMessage(fn: (payload: string) => void): void {
    this.emitter.on('message', fn);
  }

  /** Starts the LISTEN connection once; on failure, a later call tries again. */
  async listen(): Promise<void> {
    if (this.client || this.closed) return;
    if (this.db.kind === 'pglite') {
      localPeers(this.db, this.channel).add(this);
      this.ready = true;
      return;
    }
    const client = new pg.Client({ connectionString: this.db.url, application_name: this.listenerName });
    this.client = client;
    let ownPid: number | null = null;
    client.on('notification', (msg) => {
      if (msg.processId === ownPid) return; // our own NOTIFY: already announced locally
      this.emitter.emit('message', msg.payload ?? '');
    });
    client.on('error', () => {
      this.client = undefined; // polling carries on; the next listen() reconnects
      this.ready = false;
    });
    try {
      await client.connect();
      await client.query(`listen ${this.channel}`);
      await client.query('set synchronous_commit = off');
      ownPid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid ?? null;
      this.ready = this.client === client;
    } catch {
      this.client = undefined;
    }
  }

  /**
   * Tells the other processes, within a few milliseconds; `payload` is taken when the NOTIFY is sent, so
   * one NOTIFY carries the newest news of a burst. One NOTIFY at a time, on the LISTEN connection when
   * there is one (it commits asynchronously and takes no pool connection; a NOTIFY takes an xid, and every
   * reader of $all waits for open xids). The statement that notifies also finds out whether anyone else
   * listens: with no one (one process on the database, as `npm start`), it would be a round trip for nobody,
   * so that finding is trusted for LISTENERS_CHECK_MS, during which a new listener still finds news by polling.
   */
  notify(payload: () => string | null): void {
    if (this.timer || this.closed) return;
    if (this.db.kind === 'pglite') {
      // Called on every append: count the listeners other than this one without copying the set.
      const peers = localPeers(this.db, this.channel);
      if (peers.size - (peers.has(this) ? 1 : 0) === 0) return;
    } else if (!this.client) void this.listen();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.send(payload);
    }, COALESCE_MS);
  }

  private send(payload: () => string | null): void {
    const text = payload();
    if (this.closed || text === null) return;
    if (this.db.kind === 'pglite') {
      for (const c of localPeers(this.db, this.channel)) if (c !== this) c.emitter.emit('message', text);
      return;
    }
    if (this.sending) {
      this.sendAgain = true;
      return;
    }
    if (!this.othersListen && Date.now() - this.checkedAt < LISTENERS_CHECK_MS) return;
    this.sending = true;
    const sql = `select count(pg_notify($1, $2))::int as sent from pg_stat_activity
                 where datname = current_database() and application_name = $3 and pid <> pg_backend_pid()`;
    const args = [this.channel, text, this.listenerName];
    const via = this.ready ? this.client : undefined;
    (via ? via.query<{ sent: number }>(sql, args).then((r) => r.rows) : this.db.knex.raw<{ rows: { sent: number }[] }>(sql.replace(/\$\d/g, '?'), args).then((r) => r.rows))
      .then((rows) => {
        this.othersListen = (rows[0]?.sent ?? 0) > 0;
        this.checkedAt = Date.now();
      })
      .catch(() => {})
      .finally(() => {
        this.sending = false;
        if (this.sendAgain) {
          this.sendAgain = false;
          this.send(payload);
        }
      });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.ready = false;
    if (this.db.kind === 'pglite') localPeers(this.db, this.channel).delete(this);
    clearTimeout(this.timer);
    if (this.client) await this.client.end().catch(() => {});
  }
}
