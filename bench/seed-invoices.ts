// Bulk rows for the invoice list phase: written straight into the billing_invoices read model.
import type { Knex } from 'knex';

// billing_invoices rows straight into the read model (the list phase measures reads, not writes):
// 100 invoices per customer (ids are valid v4-shaped UUIDs), 60% paid, 20% open, 10% draft, 10% void, a minute apart.
// The doc holds what billing.invoices.list returns (the phase reads lists only), which keeps the bulk insert short.
export async function seedInvoices(knex: Knex, count: number): Promise<string[]> {
  const customers = Math.max(1, Math.floor(count / 100));
  for (let from = 0; from < count; from += 100_000) {
    await knex.raw(INVOICES, [customers, customers, customers, customers, customers, from, Math.min(count, from + 100_000) - 1]);
  }
  await knex.raw('analyze billing_invoices');
  const rows = await knex.raw(`select distinct customer_id::text as id from billing_invoices where id in (select id from billing_invoices tablesample system (1) limit 500)`);
  return (rows.rows as { id: string }[]).map((r) => r.id);
}

const INVOICES = `
  insert into billing_invoices (id, organization_id, customer_id, status, currency, number, issue_date, due_date, total, amount_remaining, created_at, doc)
  select id, org, cust, status, 'GBP', num, issue, issue + 30, total, remaining, created, jsonb_build_object(
      'id', id, 'number', num, 'organization_id', org, 'customer_id', cust, 'status', status, 'currency', 'GBP', 'lines', '[]'::jsonb,
      'total', total, 'amount_remaining', remaining, 'issue_date', issue, 'due_date', issue + 30, 'created_at', created)
  from (
    select overlay(overlay(md5('bench-invoice-' || i) placing '4' from 13) placing '8' from 17)::uuid as id,
      overlay(overlay(md5('bench-inv-org-' || (i % ?::int)) placing '4' from 13) placing '8' from 17)::uuid as org,
      overlay(overlay(md5('bench-inv-customer-' || (i % ?::int)) placing '4' from 13) placing '8' from 17)::uuid as cust,
      case when (i / ?::int) % 10 < 6 then 'paid' when (i / ?::int) % 10 < 8 then 'open' when (i / ?::int) % 10 = 8 then 'draft' else 'void' end as status,
      'INV-B-' || lpad(i::text, 9, '0') as num,
      date '2025-01-01' + (i / 10000) as issue,
      1000 + (i % 997) * 10 as total,
      500 as remaining,
      timestamptz '2025-01-01T00:00:00Z' + i * interval '1 minute' as created
    from generate_series(?::int, ?::int) as i
  ) s`;
