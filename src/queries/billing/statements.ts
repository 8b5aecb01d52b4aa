// billing.customers.statement.get, reading billing_ledger_entries and billing_receivables (projections/billing/statements.ts).
import type { Knex } from 'knex';
import type { Db } from '../../db.ts';
import { pooledQuery } from '../../pooled-query.ts';
import { operation } from '../../contract/operation.ts';
import { CustomerStatementGetRequest, CustomerStatementResponse } from '../../contract/schemas/billing-statements.ts';
import { type UnpaidInvoice, daysBetween } from '../../domain/billing/access.ts';
import type { LedgerEntryDoc, ReceivableDoc } from '../../projections/billing/statements.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { CUSTOMER_DOC_SQL, canSeeOrganization } from './customers.ts';
import type { CustomerDoc } from '../../projections/billing/customers.ts';
import { billingStatementsProjection } from '../../projections/billing/statements.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { exampleIds, examplePaidInvoice, examplePayment } from '../../contract/examples/billing.ts';

/** Which ageing bucket `daysPastDue` falls in. */
export function ageingBucket(daysPastDue: number): 'current' | 'days_1_30' | 'days_31_60' | 'days_61_90' | 'days_over_90' {
  if (daysPastDue <= 0) return 'current';
  if (daysPastDue <= 30) return 'days_1_30';
  if (daysPastDue <= 60) return 'days_31_60';
  if (daysPastDue <= 90) return 'days_61_90';
  return 'days_over_90';
}

/**
 * The customer and the three reads of a statement (opening balance and unapplied credit, the period's lines,
 * what the invoices still owed at the end of `to` per due date) in one round trip; named, so Postgres plans it once per
 * connection. The opening balance, unapplied credit and ageing read billing_ledger_totals (sums per entry date and due
 * date), so their cost follows the days of the account, not its invoices (issue 31). $1 customer, $2 currency (null:
 * the customer's), $3 from, $4 to.
 */
const STATEMENT = {
  name: 'billing_statement_totals',
  text: `with cust as (select doc, coalesce($2::text, doc->>'currency') as currency from (${CUSTOMER_DOC_SQL}) c)
     select (select doc from cust) as customer, (select currency from cust) as currency,
       (select json_build_object('opening', sum(net) filter (where entry_date < $3), 'unapplied', sum(balance_credit) filter (where entry_date <= $4))
          from billing_ledger_totals where customer_id = $1 and currency = (select currency from cust)) as totals,
       (select coalesce(json_agg(doc order by entry_date, seq), '[]'::json)
          from billing_ledger_entries where customer_id = $1 and currency = (select currency from cust) and entry_date between $3 and $4) as lines,
       (select coalesce(json_agg(json_build_object('due_date', o.due_date, 'owed', o.owed)), '[]'::json) from (
          select due_date, sum(item_effect) as owed from billing_ledger_totals
          where customer_id = $1 and currency = (select currency from cust) and entry_date <= $4 and due_date is not null group by due_date) o) as owed`,
};

interface StatementRow {
  customer: CustomerDoc | null;
  currency: string | null;
  totals: { opening: number | null; unapplied: number | null } | null;
  lines: LedgerEntryDoc[];
  owed: { due_date: string; owed: number }[];
}

/**
 * Builds a customer's statement for a period from the ledger entries, in `currency` or the customer's own;
 * all amounts integer minor units of it. `check` sees the customer first (null: there is none) and may throw.
 */
export async function buildStatement(db: Db, customerId: string, currency: string | null, from: string, to: string, check: (customer: CustomerDoc | null) => void) {
  const [row] = await pooledQuery<StatementRow>(db, STATEMENT, [customerId, currency, from, to]);
  if (!row) throw new Error('statement query returned no row');
  check(row.customer);
  const { totals, owed } = row;
  const opening = Number(totals?.opening ?? 0);
  let balance = opening;
  let debits = 0;
  let credits = 0;
  const lines = row.lines.map((d) => {
    balance += d.debit - d.credit;
    debits += d.debit;
    credits += d.credit;
    return {
      date: d.date, kind: d.kind, description: d.description, invoice_id: d.invoice_id, invoice_number: d.invoice_number, payment_id: d.payment_id,
      debit: d.debit, credit: d.credit, balance,
    };
  });
  const unapplied = Number(totals?.unapplied ?? 0);
  const ageing = { current: 0, days_1_30: 0, days_31_60: 0, days_61_90: 0, days_over_90: 0 };
  for (const o of owed) ageing[ageingBucket(daysBetween(o.due_date, to))] += Number(o.owed);
  return {
    customer_id: customerId,
    currency: row.currency ?? currency ?? '',
    from,
    to,
    opening_balance: opening,
    lines,
    total_debits: debits,
    total_credits: credits,
    closing_balance: opening + debits - credits,
    unapplied_credit: unapplied,
    ageing,
  };
}

export const customersStatementGet = operation({
  id: 'billing.customers.statement.get',
  examples: {
    // January and February: the invoice issued on 15 January, paid on 3 February.
    request: { customer_id: exampleIds.customer, from: '2026-01-01', to: '2026-02-28' },
    response: {
      customer_id: exampleIds.customer,
      currency: 'GBP',
      from: '2026-01-01',
      to: '2026-02-28',
      opening_balance: 0,
      lines: [
        { date: '2026-01-15', kind: 'invoice', description: `Invoice ${examplePaidInvoice.number}`, invoice_id: exampleIds.invoice, invoice_number: examplePaidInvoice.number, payment_id: null, debit: 12000, credit: 0, balance: 12000 },
        {
          date: examplePayment.received_on, kind: 'payment', description: `Payment BACS 4411 (bank transfer) for ${examplePaidInvoice.number}`, invoice_id: exampleIds.invoice,
          invoice_number: examplePaidInvoice.number, payment_id: examplePayment.id, debit: 0, credit: 12000, balance: 0,
        },
      ],
      total_debits: 12000,
      total_credits: 12000,
      closing_balance: 0,
      unapplied_credit: 0,
      ageing: { current: 0, days_1_30: 0, days_31_60: 0, days_61_90: 0, days_over_90: 0 },
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: "A customer's statement for a period: opening balance, dated lines with running balance, closing balance, unapplied credit and ageing.",
  description:
    'Lines are finalized invoices (debit, dated by issue date), payments (credit, dated by the day received), credit notes (credit) and adjustments ' +
    '(voided invoices, reversed payments). Drafts are not on statements. Ageing buckets the amounts still owed at the end of `to` by days past due.',
  request: CustomerStatementGetRequest,
  response: CustomerStatementResponse,
  error: 'billing.CustomerStatementGetError',
  errors: billingErrors.list('customer_not_found'),
  access: 'org_user',
  async handle(ctx, req) {
    await caughtUp(ctx.services, [billingStatementsProjection]);
    return buildStatement(ctx.services.db, req.customer_id, req.currency ?? null, req.from, req.to, (customer) => {
      if (!customer || !canSeeOrganization(ctx, customer.organization_id)) throw ctx.errors.error('customer_not_found', `No customer ${req.customer_id} in this organization.`);
    });
  },
});

/** Read operations of statements. */
export const billingStatementQueries = [customersStatementGet];

/** Open invoices of a customer with money still owed. */
export async function unpaidInvoices(knex: Knex, customerId: string): Promise<UnpaidInvoice[]> {
  const rows = (await knex('billing_receivables').where({ customer_id: customerId, status: 'open' }).where('amount_remaining', '>', 0).orderBy(['due_date', 'id']).select('doc')) as { doc: ReceivableDoc }[];
  return rows.map(({ doc: d }) => ({ invoice_id: d.id, number: d.number, due_date: d.due_date, amount_remaining: d.amount_remaining, currency: d.currency }));
}

/** Customers with an open invoice still owed whose due date is on or before `dueBy` (overdue candidates). */
export async function customersOwingSince(knex: Knex, dueBy: string): Promise<{ customer_id: string; organization_id: string }[]> {
  return (await knex('billing_receivables').where({ status: 'open' }).where('amount_remaining', '>', 0).where('due_date', '<=', dueBy).distinct('customer_id', 'organization_id')) as {
    customer_id: string;
    organization_id: string;
  }[];
}
