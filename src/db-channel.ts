// A NOTIFY channel between the service's processes on one PostgreSQL database: every channel of a process
// listens on the process's one listener connection (src/db-listener.ts), and NOTIFYs are coalesced and sent only
// while another process listens. Channels of one database in one process (PGlite, or two apps on one pool in a
// test) are told directly. Polling stays the guarantee; a notification only shortens a wait.
import { EventEmitter } from 'node:events';
import type { Db } from './db.ts';
import { type ListenerTag, type SharedListener, holdsTag, sharedListener } from './db-listener.ts';

/** How long a finding that no other process listens is trusted (a new listener polls meanwhile). */
const LISTENERS_CHECK_MS = 1000;
/** NOTIFYs of one burst (appends, projection commits) go out as one. */
const COALESCE_MS = 5;

/** This process's listening channels, by database and channel name. */
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
  private readonly listener?: SharedListener;
  private joined = false;
  private readonly forward = (payload: string) => this.emitter.emit('message', payload);
  private sending = false;
  private sendAgain = false;
  private timer?: NodeJS.Timeout;
  private othersListen = true;
  private checkedAt = 0;
  private closed = false;

  /** `tag` names the channel in the listener connection's application_name: how a process sees whether another listens. */
  constructor(
    private readonly db: Db,
    private readonly channel: string,
    private readonly tag: ListenerTag,
  ) {
    this.emitter.setMaxListeners(0);
    if (db.kind === 'postgres') this.listener = sharedListener(db);
  }

  /** Whether this process has started (or tried to start) listening. */
  get started(): boolean {
    return this.joined && (this.listener?.started ?? true);
  }

  /** Whether the LISTEN connection is up: other processes' notifications reach this one. */
  get listening(): boolean {
    return this.joined && (this.listener?.listening ?? true);
  }

  /** Calls `fn` with the payload of every notification another process sends. */
  onMessage(fn: (payload: string) => void): void {
    this.emitter.on('message', fn);
  }

  /** Starts listening (on the process's listener connection) once; on failure, a later call tries again. */
  async listen(): Promise<void> {
    if (this.closed) return;
    if (!this.joined) {
      this.joined = true;
      localPeers(this.db, this.channel).add(this);
      if (this.listener) {
        this.listener.use();
        this.listener.subscribe(this.channel, this.tag, this.forward);
        await this.listener.hold(this.tag);
      }
    }
    await this.listener?.listen();
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
    } else if (!this.started) void this.listen();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.send(payload);
    }, COALESCE_MS);
  }

  private send(payload: () => string | null): void {
    const text = payload();
    if (this.closed || text === null) return;
    // Peers in this process (another app on the same pool) are told directly: a NOTIFY from this process's own
    // connection is not delivered back to it.
    for (const c of localPeers(this.db, this.channel)) if (c !== this) c.emitter.emit('message', text);
    if (this.db.kind === 'pglite') return;
    if (this.sending) {
      this.sendAgain = true;
      return;
    }
    if (!this.othersListen && Date.now() - this.checkedAt < LISTENERS_CHECK_MS) return;
    this.sending = true;
    const sql = `select count(pg_notify($1, $2))::int as sent from pg_stat_activity
                 where datname = current_database() and ${holdsTag('$3')} and pid <> pg_backend_pid()`;
    const args = [this.channel, text, this.tag];
    (this.listener?.query<{ sent: number }>(sql, args) ?? this.db.knex.raw<{ rows: { sent: number }[] }>(sql.replace(/\$\d/g, '?'), args).then((r) => r.rows))
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
    if (this.closed) return;
    this.closed = true;
    localPeers(this.db, this.channel).delete(this);
    clearTimeout(this.timer);
    if (this.joined && this.listener) {
      this.listener.unsubscribe(this.channel, this.forward);
      await this.listener.releaseTag(this.tag);
      await this.listener.leave();
    }
  }
}
