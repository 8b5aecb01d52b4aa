// Child process of the CRUD baseline: express 5 + pg (or PGlite), the same zod request schema as
// billing.customers.insert, one INSERT ... RETURNING and one SELECT per request. No events, no projections.
import crypto from 'node:crypto';
import express from 'express';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { CustomerCreateRequest } from '../src/contract/schemas/billing-customers.ts';
import { benchPoolMax } from './support.ts';
import { serveReference } from './child.ts';

type Query = (sql: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

const TABLE = `
  create table if not exists crud_customers (
    id uuid primary key, organization_id uuid not null unique, name text not null, email text not null,
    status text not null, created_at timestamptz not null, doc jsonb not null
  )`;

async function open(): Promise<{ query: Query; close: () => Promise<void> }> {
  if (process.env.BENCH_BACKEND === 'postgres') {
    const pool = new pg.Pool({ connectionString: process.env.BENCH_SERVER_DB, max: benchPoolMax() });
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
  await serveReference(app, { operations: ['billing.customers.insert'], defaultOrgs: 1000, close: () => db.close() });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
