// A short-lived cache of resolved API sessions: a client's burst of requests with one token looks it up once.
import type { Knex } from 'knex';
import type { Auth, SessionAuth } from '../../context.ts';
import { onDocumentWritten } from '../../projections/documents/cache.ts';
import { sessionAuth } from './identity.ts';
import { looksValid } from '../../secrets.ts';

/**
 * How long (ms of the service clock) a resolved session is reused. A sign-out in this process, and any change
 * to users or memberships this process's projections commit, drop every entry at once; a revocation
 * or role change made by ANOTHER process is seen within this bound (docs/decisions.md, issue 9).
 */
export const SESSION_CACHE_MS = 1000;
const MAX_ENTRIES = 10_000;

const caches = new WeakMap<Knex, Map<string, { auth: SessionAuth; until: number; generation: number }>>();
/** Lookups under way, by generation and token (per database, as the cache). */
const lookups = new WeakMap<Knex, Map<string, Promise<Auth | null>>>();
/** Bumped by every sign-out and identity change: entries of an older generation are not used. */
let generation = 0;

// Roles and memberships are part of a resolved session.
for (const table of ['identity_users', 'identity_memberships']) onDocumentWritten(table, () => generation++);

/** Resolves a session token like `sessionAuth`, reusing a resolution younger than SESSION_CACHE_MS. Only valid sessions are kept. */
export async function cachedSessionAuth(knex: Knex, token: string, now: Date): Promise<Auth | null> {
  let cache = caches.get(knex);
  if (!cache) {
    cache = new Map();
    caches.set(knex, cache);
  }
  // Keyed by the token itself (in this process's memory only): a hit costs no hashing.
  const hit = cache.get(token);
  if (hit && hit.generation === generation && hit.until > now.getTime() && hit.auth.expiresAt > now) return hit.auth;
  cache.delete(token);
  if (!looksValid(token, 'svc_sess_')) return null;
  const seen = generation;
  // Requests that miss together share one lookup (32 clients with one token all missed when its entry expired), unless
  // a sign-out or identity change came since it began.
  const key = `${seen}:${token}`;
  let pending = lookups.get(knex);
  if (!pending) {
    pending = new Map();
    lookups.set(knex, pending);
  }
  let lookup = pending.get(key);
  if (!lookup) {
    const own = pending;
    lookup = sessionAuth(knex, token, now).finally(() => own.delete(key));
    own.set(key, lookup);
  }
  const auth = await lookup;
  // A sign-out or identity change during the lookup: do not keep what may predate it.
  if (auth?.kind === 'session' && seen === generation) {
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(token, { auth, until: now.getTime() + SESSION_CACHE_MS, generation });
  }
  return auth;
}

/** Drops every cached session at once (a sign-out: the revoked one must stop working now). */
export function forgetSessions(): void {
  generation++;
}
