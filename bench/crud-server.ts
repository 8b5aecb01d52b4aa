// Child process of the CRUD baseline: express 5 + pg (or PGlite), the same zod request schema as
// billing.customers.insert, one INSERT ... RETURNING and one SELECT per request. No events, no projections.
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { CustomerCreateRequest } from '../src/api/schemas/billing-customers.ts';
import { POOL_SIZE } from './support.ts';
import type { ServerReady } from './server.ts';

type Query = (sql: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

const TABLE = `
  create table if not exists crud_customers (
    id uuid primary key, organization_id uuid not null unique, name text not null, email text not null,
    status text not null, created_at timestamptz not null, doc jsonb not null
  )`;

async function open(): Promise<{ query: Query; close: () => Promise<void> }> {
  if (process.env.BENCH_BACKEND === 'postgres') {
    const pool = new pg.Pool({ connectionString: process.env.BENCH_SERVER_DB, max: POOL_SIZE });
    return { query: (sql, params) => pool.query(sql, params), close: () => pool.end() };
  }
  const db = new PGlite('memory://');
  await db.waitReady;
  return { query: (sql, params) => db.query<Record<string, unknown>>(sql, params), close: () => db.close() };
}

async function main(): Promise<void> {
  const db = await open();
  await db.query(TABLE, []);
  const app = express();
  app.disable('x-powered-by');
  app.post('/api/v1/billing.customers.insert', express.json({ limit: '1mb' }), async (req, res) => {
    try {
      if (!req.get('authorization')) return void res.status(401).json({ code: 'unauthenticated' });
      const parsed = CustomerCreateRequest.safeParse(req.body);
      if (!parsed.success) return void res.status(400).json({ code: 'invalid_request', issues: parsed.error.issues });
      const { organization_id, ...rest } = parsed.data;
      const id = crypto.randomUUID();
      const now = new Date().toISOString();
      const doc = { id, organization_id, ...rest, billing_address: rest.billing_address ?? null, tax_id: rest.tax_id ?? null, status: 'active', created_at: now, updated_at: now };
      await db.query(
        'insert into crud_customers (id, organization_id, name, email, status, created_at, doc) values ($1, $2, $3, $4, $5, $6, $7) returning id',
        [id, organization_id, rest.name, rest.email, 'active', now, JSON.stringify(doc)],
      );
      const row = await db.query('select doc from crud_customers where id = $1', [id]);
      res.json(row.rows[0]?.doc);
    } catch (err) {
      const e = err as { code?: string; message?: string };
      res.status(e.code === '23505' ? 409 : 500).json({ code: e.code === '23505' ? 'customer_exists' : 'internal', message: e.message });
    }
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  const orgIds = Array.from({ length: Number(process.env.BENCH_ORGS ?? '1000') }, () => crypto.randomUUID());
  const ready: ServerReady = { url: `http://127.0.0.1:${port}`, staffToken: 'crud', orgIds, operations: ['billing.customers.insert'], benchCustomerIds: [] };
  process.send?.({ ready });
  const stop = async () => {
    server.closeAllConnections();
    server.close();
    await db.close();
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
