// Child process of the CRUD ledger reference: the ledger mix's five operations done the plain way, express 5 +
// pg (or PGlite), the same zod request schemas, rows updated in place in one transaction per write. No events,
// no projections. What the same invoicing work costs without event sourcing, for phase (d).
import crypto from 'node:crypto';
import express, { type Request, type Response } from 'express';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import type { z } from 'zod';
import { CustomerCreateRequest } from '../src/contract/schemas/billing-customers.ts';
import { InvoiceCreateRequest, InvoiceListRequest, InvoiceUpdateRequest, PaymentInsertRequest } from '../src/contract/schemas/billing-invoices.ts';
import { CustomerStatementGetRequest } from '../src/contract/schemas/billing-statements.ts';
import { benchPoolMax } from './support.ts';
import { serveReference } from './child.ts';

type Row = Record<string, unknown>;
type Query = (sql: string, params?: unknown[]) => Promise<Row[]>;

const TABLES = [
  `create table crud_customers (id uuid primary key, organization_id uuid not null unique, currency text not null, payment_terms_days int not null, doc jsonb not null)`,
  `create table crud_invoices (id uuid primary key, customer_id uuid not null, status text not null, currency text not null, total bigint not null,
     amount_paid bigint not null, created_at timestamptz not null, doc jsonb not null)`,
  `create index crud_invoices_customer on crud_invoices (customer_id, status, created_at desc, id desc)`,
  `create table crud_payments (id uuid primary key, invoice_id uuid not null, amount bigint not null, doc jsonb not null)`,
  `create table crud_ledger (seq bigserial primary key, customer_id uuid not null, currency text not null, entry_date date not null, debit bigint not null, credit bigint not null, doc jsonb not null)`,
  `create index crud_ledger_customer on crud_ledger (customer_id, currency, entry_date)`,
  `create table crud_counters (year int primary key, last int not null)`,
];

interface Store {
  query: Query;
  /** Runs `fn` in one transaction. */
  tx<T>(fn: (q: Query) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function open(): Promise<Store> {
  if (process.env.BENCH_BACKEND === 'postgres') {
    const pool = new pg.Pool({ connectionString: process.env.BENCH_SERVER_DB, max: benchPoolMax() });
    return {
      query: async (sql, params) => (await pool.query(sql, params)).rows,
      async tx(fn) {
        const c = await pool.connect();
        try {
          await c.query('begin');
          const out = await fn(async (sql, params) => (await c.query(sql, params)).rows);
          await c.query('commit');
          return out;
        } catch (err) {
          await c.query('rollback').catch(() => {});
          throw err;
        } finally {
          c.release();
        }
      },
      close: () => pool.end(),
    };
  }
  const db = new PGlite('memory://');
  await db.waitReady;
  return {
    query: async (sql, params) => (await db.query<Row>(sql, params)).rows,
    tx: (fn) => db.transaction((t) => fn(async (sql, params) => (await t.query<Row>(sql, params)).rows)),
    close: () => db.close(),
  };
}

class HttpError extends Error {
  constructor(readonly status: number, readonly code: string) {
    super(code);
  }
}

const today = () => new Date().toISOString().slice(0, 10);

async function main(): Promise<void> {
  const db = await open();
  for (const t of TABLES) await db.query(t);
  const app = express();
  app.disable('x-powered-by');
  // One route per operation: auth header, zod, the handler, errors as JSON.
  const route = <S extends z.ZodType>(op: string, schema: S, handle: (req: z.output<S>) => Promise<unknown>) =>
    app.post(`/api/v1/${op}`, express.json({ limit: '1mb' }), async (req: Request, res: Response) => {
      try {
        if (!req.get('authorization')) throw new HttpError(401, 'unauthenticated');
        const parsed = schema.safeParse(req.body);
        if (!parsed.success) throw new HttpError(400, 'invalid_request');
        res.json(await handle(parsed.data));
      } catch (err) {
        const e = err instanceof HttpError ? err : new HttpError(500, 'internal');
        res.status(e.status).json({ code: e.code });
      }
    });

  route('billing.customers.insert', CustomerCreateRequest, async (r) => {
    const id = crypto.randomUUID();
    const doc = { id, organization_id: r.organization_id, name: r.name, email: r.email, currency: r.currency, payment_terms_days: r.payment_terms_days ?? 30, status: 'active', created_at: new Date().toISOString() };
    await db.query('insert into crud_customers (id, organization_id, currency, payment_terms_days, doc) values ($1, $2, $3, $4, $5)', [id, r.organization_id, doc.currency, doc.payment_terms_days, JSON.stringify(doc)]);
    return (await db.query('select doc from crud_customers where id = $1', [id]))[0]?.doc;
  });

  route('billing.invoices.insert', InvoiceCreateRequest, async (r) => {
    const [customer] = await db.query('select currency from crud_customers where id = $1', [r.customer_id]);
    if (!customer) throw new HttpError(404, 'customer_not_found');
    const id = crypto.randomUUID();
    const lines = r.lines.map((l) => ({ ...l, amount: l.quantity * l.unit_amount }));
    const total = lines.reduce((s, l) => s + l.amount, 0);
    const doc = { id, customer_id: r.customer_id, status: 'draft', number: null, currency: r.currency ?? customer.currency, lines, total, amount_paid: 0, amount_remaining: total, created_at: new Date().toISOString() };
    const [row] = await db.query('insert into crud_invoices (id, customer_id, status, currency, total, amount_paid, created_at, doc) values ($1, $2, $3, $4, $5, 0, now(), $6) returning doc', [id, r.customer_id, 'draft', doc.currency, total, JSON.stringify(doc)]);
    return row?.doc;
  });

  route('billing.invoices.update', InvoiceUpdateRequest, (r) =>
    db.tx(async (q) => {
      const [inv] = await q('select doc from crud_invoices where id = $1 for update', [r.id]);
      if (!inv) throw new HttpError(404, 'invoice_not_found');
      const doc = inv.doc as Row & { status: string; customer_id: string; total: number; currency: string };
      if (r.action !== 'finalize' || doc.status !== 'draft') throw new HttpError(409, 'invalid_status_transition');
      const [customer] = await q('select payment_terms_days from crud_customers where id = $1', [doc.customer_id]);
      const year = new Date().getUTCFullYear();
      const [n] = await q('insert into crud_counters (year, last) values ($1, 1) on conflict (year) do update set last = crud_counters.last + 1 returning last', [year]);
      const due = new Date(Date.now() + Number(customer?.payment_terms_days ?? 30) * 86_400_000).toISOString().slice(0, 10);
      const next = { ...doc, status: 'open', number: `INV-${year}-${String(n?.last).padStart(6, '0')}`, issue_date: today(), due_date: due };
      await q('update crud_invoices set status = $2, doc = $3 where id = $1', [r.id, 'open', JSON.stringify(next)]);
      await q('insert into crud_ledger (customer_id, currency, entry_date, debit, credit, doc) values ($1, $2, $3, $4, 0, $5)', [doc.customer_id, doc.currency, today(), doc.total, JSON.stringify({ kind: 'invoice', invoice_id: r.id, number: next.number })]);
      return next;
    }),
  );

  route('billing.payments.insert', PaymentInsertRequest, (r) =>
    db.tx(async (q) => {
      const [inv] = await q('select doc from crud_invoices where id = $1 for update', [r.invoice_id]);
      if (!inv) throw new HttpError(404, 'invoice_not_found');
      const doc = inv.doc as Row & { status: string; customer_id: string; total: number; amount_paid: number; currency: string };
      if (doc.status !== 'open') throw new HttpError(409, 'invoice_not_payable');
      if (r.amount > doc.total - doc.amount_paid) throw new HttpError(409, 'amount_exceeds_remaining');
      const id = crypto.randomUUID();
      const payment = { id, invoice_id: r.invoice_id, amount: r.amount, currency: r.currency, method: r.method, reference: r.reference ?? null, received_on: r.received_on ?? today(), status: 'recorded' };
      const paid = doc.amount_paid + r.amount;
      const invoice = { ...doc, amount_paid: paid, amount_remaining: doc.total - paid, status: paid === doc.total ? 'paid' : 'open' };
      await q('insert into crud_payments (id, invoice_id, amount, doc) values ($1, $2, $3, $4)', [id, r.invoice_id, r.amount, JSON.stringify(payment)]);
      await q('update crud_invoices set status = $2, amount_paid = $3, doc = $4 where id = $1', [r.invoice_id, invoice.status, paid, JSON.stringify(invoice)]);
      await q('insert into crud_ledger (customer_id, currency, entry_date, debit, credit, doc) values ($1, $2, $3, 0, $4, $5)', [doc.customer_id, doc.currency, payment.received_on, r.amount, JSON.stringify({ kind: 'payment', payment_id: id })]);
      return { payment, invoice };
    }),
  );

  route('billing.invoices.list', InvoiceListRequest, async (r) => {
    const rows = await db.query('select doc from crud_invoices where customer_id = $1 and status = $2 order by created_at desc, id desc limit $3', [r.customer_id, r.status, r.limit ?? 20]);
    return { items: rows.map((x) => x.doc), pagination: null };
  });

  route('billing.customers.statement.get', CustomerStatementGetRequest, async (r) => {
    const [customer] = await db.query('select currency from crud_customers where id = $1', [r.customer_id]);
    if (!customer) throw new HttpError(404, 'customer_not_found');
    const [row] = await db.query(
      `select (select coalesce(sum(debit - credit), 0) from crud_ledger where customer_id = $1 and currency = $2 and entry_date < $3) as opening,
              (select coalesce(json_agg(doc order by entry_date, seq), '[]'::json) from crud_ledger where customer_id = $1 and currency = $2 and entry_date between $3 and $4) as lines`,
      [r.customer_id, customer.currency, r.from, r.to],
    );
    return { customer_id: r.customer_id, currency: customer.currency, from: r.from, to: r.to, opening_balance: Number(row?.opening ?? 0), lines: row?.lines ?? [] };
  });

  await serveReference(app, { operations: ['billing.customers.statement.get'], defaultOrgs: 64, close: () => db.close() });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
