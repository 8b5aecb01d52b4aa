// Starts the real service on an ephemeral port over a fresh database, and talks to it with fetch.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { ZodType, z } from 'zod';
import type { JsonOperation } from '../../src/contract/operation.ts';
import type { ErrorBody } from '../../src/http/errors.ts';
import { TestClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { type App, createApp } from '../../src/app.ts';
import type { Db } from '../../src/db.ts';
import { systemContext } from '../support/system.ts';
import { addSite, createOrganization, createSession, createUser, type OrganizationKind, type Role } from '../../src/commands/identity/identity.ts';

import { type Backend, openTestDb } from './db.ts';
import { freePort } from './process.ts';
import { identityProjection } from '../../src/projections/identity/identity.ts';

/** A response as tests see it. */
export interface Reply<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** The body an operation takes (a body-less one takes none, or `{}`). */
export type RequestOf<Op extends JsonOperation> = Op['request'] extends ZodType ? z.input<Op['request']> : undefined | Record<string, never>;
/** What an operation answers: its response, or (on a 4xx) the error body, so tests read `code` and fields alike. */
export type ReplyOf<Op extends JsonOperation> = Reply<z.output<Op['response']> & Partial<ErrorBody>>;
/** A reply to a request outside any operation's types (bad input, unknown operations, raw bodies). */
export type RawReply = Reply<Partial<ErrorBody> & Record<string, unknown>>;

/** A running service for one suite. */
export interface TestService {
  app: App;
  db: Db;
  url: string;
  clock: TestClock;
  /** POST /api/v1/<op.id> with a body of the operation's request type (undefined = no body). */
  call<Op extends JsonOperation>(op: Op, body: RequestOf<Op>, token?: string | null, headers?: Record<string, string>): Promise<ReplyOf<Op>>;
  /** POST /api/2026-01/<op.id>. */
  callIntegration<Op extends JsonOperation>(op: Op, body: RequestOf<Op>, headers?: Record<string, string>): Promise<ReplyOf<Op>>;
  /** POST any body to /api/v1/<id> (or /api/2026-01/ with `surface`): for bad input and unknown operations. */
  send(id: string, body: unknown, token?: string | null, headers?: Record<string, string>, surface?: 'core' | 'integrations'): Promise<RawReply>;
  /** Creates an organization with a user signed in; returns ids and the session token. */
  signUp(opts?: { kind?: OrganizationKind; role?: Role; staff?: ('billing_staff' | 'platform_staff')[]; name?: string; email?: string; password?: string }): Promise<{ orgId: string; userId: string; token: string; email: string; siteId: string }>;
  close(): Promise<void>;
}

let counter = 0;

// The Authorization header for a session token, added to the given headers.
function bearer(token: string | null | undefined, headers: Record<string, string>): Record<string, string> {
  return { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers };
}

/** Starts the service on `backend`. */
export async function startService(backend: Backend, opts: { clock?: TestClock; env?: Record<string, string>; selfUrl?: boolean; db?: Db; logLines?: string[] } = {}): Promise<TestService> {
  // `db`: a database the suite opened itself (migrated; closed with the service).
  const db = opts.db ?? (await openTestDb(backend));
  const clock = opts.clock ?? new TestClock(new Date());
  // selfUrl: listen on a port chosen first so BASE_URL (links the service hands out, the sandbox provider's notifications) reaches this instance.
  const port = opts.selfUrl ? await freePort() : 0;
  const config = loadConfig({ DATA_DIR: '/tmp/core-server-test-unused', LOG_LEVEL: 'silent', PROJECTION_WAIT_MS: '10000', OBJECT_STORE: `file:${mkdtempSync(path.join(os.tmpdir(), 'core-objects-'))}`, ...(port ? { BASE_URL: `http://127.0.0.1:${port}` } : {}), ...opts.env });
  // logLines: every line the service logs (at debug and above) is kept there, for tests that read the logs.
  const lines = opts.logLines;
  const logger = lines ? pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }) : pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const app = await createApp(config, { db, clock, checkContracts: true, logger });
  const url = await app.listen(port, '127.0.0.1');
  const post = async <T>(path: string, body: unknown, headers: Record<string, string>): Promise<Reply<T>> => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // A stream that opened (200 text/event-stream) would never end: callers of post only need its status and headers.
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
      await res.body?.cancel();
      return { status: res.status, headers: res.headers, body: undefined as T };
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  };
  return {
    app,
    db,
    url,
    clock,
    call: (op, body, token, headers = {}) => post(`/api/v1/${op.id}`, body, bearer(token, headers)),
    callIntegration: (op, body, headers = {}) => post(`/api/2026-01/${op.id}`, body, headers),
    send: (id, body, token, headers = {}, surface = 'core') => post(`${surface === 'core' ? '/api/v1/' : '/api/2026-01/'}${id}`, body, bearer(token, headers)),
    async signUp(o = {}) {
      const n = ++counter;
      const ctx = systemContext(app, 'test sign-up');
      const org = await createOrganization(ctx, { name: o.name ?? `Org ${n}`, kind: o.kind ?? 'repairer' });
      const site = await addSite(ctx, org.id, `Site ${n}`);
      const email = o.email ?? `user${n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
      const user = await createUser(ctx, { email, password: o.password ?? 'correct horse battery', organizationId: org.id, role: o.role ?? 'owner', staff: o.staff });
      await app.runner.waitFor(user.position, [identityProjection], 10_000);
      const s = await createSession(app.knex, { userId: user.id, organizationId: org.id, now: clock.now(), ttlHours: 24 });
      return { orgId: org.id, userId: user.id, token: s.token, email, siteId: site.id };
    },
    async close() {
      await app.close();
      await db.close();
    },
  };
}

/** A TCP port free right now on 127.0.0.1. */
