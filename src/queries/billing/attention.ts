// billing.attention.list: everything that needs a person, gathered from the read models and operations state that
// know it (failed collections, stalled read models, unreadable streams), oldest first, with counts per kind.
import type { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import type { Services } from '../../context.ts';
import { type AttentionItem, ATTENTION_KINDS, AttentionListRequest, AttentionListResponse } from '../../contract/schemas/billing-attention.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { notReady } from '../../read-model-status.ts';
import { listUnreadableStreams } from '../../unreadable-streams.ts';
import { failingCollections } from './collections.ts';
import { dueCharges, refundDueItem } from './charges.ts';
import { customerOfOrganization, getCustomerDoc } from './customers.ts';
import { loadConfigurationSnapshot } from './configuration/snapshot.ts';
import { billedOrders, compareRatings } from './invoice-corrections.ts';
import { invoicesOfOrders } from './invoice-orders.ts';
import { monthDocuments } from './month-documents.ts';
import { subscriptionById } from './subscriptions.ts';
import { correctedOrderIds, usageByOrderIds } from './usage.ts';
import { heldMonthDocs, refusedMonthDocs } from './usage-months.ts';
import { getInvoiceDoc } from './invoices.ts';
import { failedMessages } from './messages.ts';
import { failingWebhookEndpoints } from './webhook-endpoints.ts';
import { cursorParts, cursorShape, decodeCursor, encodeCursor } from '../pagination.ts';

type Item = z.output<typeof AttentionItem>;
type Kind = Item['kind'];

/** At most this many items of one kind are gathered (and counted) per call. */
export const ATTENTION_SOURCE_CAP = 1000;

/** At most this many voided or replaced orders are looked at for usage_correction_due per call. */
const CORRECTED_ORDERS_CAP = 20_000;

/** One kind of item and how it is found. */
type Source = (services: Services) => Promise<Item[]>;

/** Charges with money due back (issue 26, section 2), as the refunds-due list shows them; `unrecorded`: only those reconciliation found. */
async function chargeItems(services: Services, unrecorded: boolean): Promise<Item[]> {
  const items: Item[] = [];
  const names = new Map<string, string | null>();
  for (const doc of await dueCharges(services.knex, ATTENTION_SOURCE_CAP)) {
    const row = await refundDueItem({ services }, doc, names);
    if (!row.why || !row.since || (row.why.code === 'unknown_at_service') !== unrecorded) continue;
    const invoice = row.invoice ? ` of invoice ${row.invoice.number ?? row.invoice.id}` : '';
    items.push({
      kind: unrecorded ? 'unrecorded_provider_charge' : 'refund_due',
      key: `${unrecorded ? 'unrecorded_provider_charge' : 'refund_due'}:${row.charge_ref}`,
      summary: unrecorded
        ? `Charge ${row.charge_ref}${invoice} was found at the provider but never recorded: ${row.amount_due} ${row.currency} is owed back`
        : `${row.amount_due} ${row.currency} of charge ${row.charge_ref}${invoice} is owed back to the customer`,
      cause: row.why.text,
      resolve: row.customer
        ? 'Refund it through the provider or apply it to another open invoice of the customer, with a reason (the Refunds due page, or billing.refunds-due.refund / .apply).'
        : 'The provider named no customer: refund it through the provider, with a reason (the Refunds due page, or billing.refunds-due.refund).',
      // The console's Refunds due page, at the charge's row: both resolutions are there.
      href: `/console/refunds-due#charge-${row.charge_ref}`,
      customer: row.customer?.name ? { id: row.customer.id, name: row.customer.name } : null,
      invoice_id: row.invoice?.id ?? null,
      amount: { amount: row.amount_due, currency: row.currency },
      since: row.since,
    });
  }
  return items;
}

const sources: Record<Kind, Source> = {
  refund_due: (services) => chargeItems(services, false),
  unrecorded_provider_charge: (services) => chargeItems(services, true),
  async failed_collection(services) {
    const items: Item[] = [];
    for (const c of await failingCollections(services.knex, ATTENTION_SOURCE_CAP)) {
      const invoice = await getInvoiceDoc(services.db, c.invoice_id);
      // Paid, voided or credited since: nothing left to collect.
      if (!invoice || !['open', 'uncollectible'].includes(invoice.status) || invoice.amount_remaining <= 0) continue;
      const customer = await getCustomerDoc(services.db, invoice.customer_id);
      const stopped = c.next_attempt_at === null;
      items.push({
        kind: 'failed_collection',
        key: `failed_collection:${c.invoice_id}`,
        summary: `Automatic collection of invoice ${invoice.number ?? c.invoice_id} ${stopped ? `stopped after ${c.attempts} declined attempts` : `was declined (attempt ${c.attempts})`}`,
        cause: `The provider declined the charge: ${c.last_code ?? 'unknown'}.`,
        resolve: stopped
          ? 'Ask the customer to pay on the payment page or to update their card, or record a payment received another way.'
          : `The next attempt is on ${c.next_attempt_at?.slice(0, 10) ?? ''}; contact the customer if the card needs updating.`,
        href: `/console/invoices/${c.invoice_id}`,
        customer: customer ? { id: customer.id, name: customer.name } : null,
        invoice_id: c.invoice_id,
        amount: { amount: invoice.amount_remaining, currency: invoice.currency },
        since: c.failing_since ?? c.updated_at,
      });
    }
    return items;
  },
  async undelivered_email(services) {
    const items: Item[] = [];
    for (const m of await failedMessages(services.knex, ATTENTION_SOURCE_CAP)) {
      const customer = await getCustomerDoc(services.db, m.customer_id);
      items.push({
        kind: 'undelivered_email',
        key: `undelivered_email:${m.id}`,
        summary: `"${m.subject_line}" to ${m.to} was not delivered after ${m.attempts} attempts`,
        cause: `The mail server answered: ${m.last_error ?? 'unknown error'}.`,
        resolve: 'Check the billing email on the customer page and the SMTP server (SMTP_URL), then send the invoice or receipt to the customer another way (the PDF is on the invoice page).',
        href: `/console/customers/${m.customer_id}#messages`,
        customer: customer ? { id: customer.id, name: customer.name } : null,
        invoice_id: m.invoice_id,
        amount: null,
        since: m.failed_at ?? m.updated_at,
      });
    }
    return items;
  },
  async usage_month_refused(services) {
    const items: Item[] = [];
    for (const m of await refusedMonthDocs(services.knex, ATTENTION_SOURCE_CAP)) {
      if (!m.refusal) continue;
      const named = m.refusal.issues.slice(0, 3).map((i) => `${i.path.replace(/^orders\./, '')} (${i.message})`).join('; ');
      items.push({
        kind: 'usage_month_refused',
        key: `usage_month_refused:${m.subscription_id}/${m.period}`,
        summary: `Usage of ${m.period} of subscription ${m.subscription_id} cannot be invoiced: ${m.refusal.code}`,
        cause: `${m.refusal.message}${named ? ` ${named}${m.refusal.issues.length > 3 ? '; ...' : ''}` : ''}`,
        resolve: m.refusal.code === 'usage_unrateable'
          ? 'Fix the orders named on the usage page (replace with the corrected facts, or void), or fix the configuration; or invoice the month without them (Generate, holding unrateable orders).'
          : 'Fix the cause (e.g. create the billing customer of the subscription\'s organization); the usage invoice worker tries again on every pass.',
        href: `/console/usage?subscription_id=${m.subscription_id}&period=${m.period}`,
        customer: await customerOfSubscription(services, m.subscription_id),
        invoice_id: null,
        amount: null,
        since: m.refusal.since,
      });
    }
    return items;
  },
  async usage_correction_due(services) {
    const { knex } = services;
    // Invoices holding orders staff voided or replaced.
    const byInvoice = new Map<string, string[]>();
    for (const [orderId, invoiceId] of await invoicesOfOrders(knex, await correctedOrderIds(knex, CORRECTED_ORDERS_CAP))) byInvoice.set(invoiceId, [...(byInvoice.get(invoiceId) ?? []), orderId]);
    const items: Item[] = [];
    const asOf = services.clock.now().toISOString();
    // The month's later documents of those invoices: their orders are rated after them, so what a void or replacement frees
    // or uses of the baseline changes their fees (since the earliest such correction).
    const later = new Map<string, string>();
    for (const [invoiceId, orderIds] of [...byInvoice].slice(0, ATTENTION_SOURCE_CAP)) {
      const invoice = await getInvoiceDoc(services.db, invoiceId);
      const subscriptionId = invoice?.lines.find((l) => l.metered)?.metered?.subscription_id;
      if (!invoice || !subscriptionId || invoice.status === 'void') continue;
      // Due while re-rating the invoice would still change a corrected order: applied corrections bill it, and a
      // correction that changes no fee or rating (a replaced buyer of the same kind) needs nothing.
      const corrected = new Set(orderIds);
      const metered = invoice.lines.find((l) => l.metered)?.metered;
      const docs = metered ? await monthDocuments(knex, subscriptionId, metered.period) : [];
      const first = [...(await usageByOrderIds(knex, orderIds)).values()].reduce((a: string | null, f) => (f.correction && (!a || f.correction.at < a) ? f.correction.at : a), null);
      for (const id of docs.slice(docs.indexOf(invoiceId) + 1)) if (first && (!later.has(id) || first < (later.get(id) ?? ''))) later.set(id, first);
      const compared = await compareRatings(knex, invoice, await billedOrders(knex, invoice), await loadConfigurationSnapshot({ services }, subscriptionId), asOf);
      const changes = compared.changes.filter((c) => corrected.has(c.order_id));
      const unrateable = compared.issues.filter((i) => corrected.has(i.path.slice('orders.'.length)));
      if (changes.length === 0 && unrateable.length === 0) continue;
      const due = [...changes.map((c) => c.order_id), ...unrateable.map((i) => i.path.slice('orders.'.length))];
      const facts = await usageByOrderIds(knex, due);
      const since = due.map((id) => facts.get(id)?.correction?.at ?? invoice.created_at).reduce((a, b) => (b < a ? b : a));
      const voided = due.filter((id) => facts.get(id)?.correction?.kind === 'voided').length;
      const number = invoice.number ?? invoice.id;
      items.push({
        kind: 'usage_correction_due',
        key: `usage_correction_due:${invoice.id}`,
        summary: `${due.length} order(s) of invoice ${number} were ${voided === due.length ? 'voided' : voided ? 'voided or replaced' : 'replaced'} after it was invoiced; the invoice is not corrected yet`,
        cause: unrateable.length
          ? `The corrected facts cannot be rated: ${unrateable[0]?.path.slice('orders.'.length)}: ${unrateable[0]?.message}${unrateable.length > 1 ? '; ...' : ''}.`
          : `Re-rating the invoice with the corrected usage changes ${changes.length} order(s) by ${changes.reduce((t, c) => t + c.new.fee - c.old.fee, 0)} ${invoice.currency}.`,
        resolve: invoice.status === 'draft'
          ? 'Finalize the draft, then issue the correction from its re-rating page (a credit note or a correction invoice, with a reason).'
          : unrateable.length
            ? 'Replace the orders with facts that can be rated (usage page) or fix the configuration, then issue the correction from the invoice\'s re-rating page.'
            : 'Issue the correction from the invoice\'s re-rating page (a credit note or a correction invoice, with a reason).',
        href: `/console/invoices/${invoice.id}/rerate`,
        customer: await customerOfSubscription(services, subscriptionId),
        invoice_id: invoice.id,
        amount: changes.length ? { amount: changes.reduce((t, c) => t + c.new.fee - c.old.fee, 0), currency: invoice.currency } : null,
        since,
      });
    }
    const listed = new Set(items.map((i) => i.invoice_id));
    for (const [invoiceId, since] of later) {
      if (listed.has(invoiceId)) continue;
      const invoice = await getInvoiceDoc(services.db, invoiceId);
      const subscriptionId = invoice?.lines.find((l) => l.metered)?.metered?.subscription_id;
      if (!invoice || !subscriptionId || invoice.status === 'void') continue;
      const compared = await compareRatings(knex, invoice, await billedOrders(knex, invoice), await loadConfigurationSnapshot({ services }, subscriptionId), asOf);
      // Only what the baseline left changed: same classification and revisions, another exempt amount.
      const changes = compared.changes.filter((c) => c.changed.includes('exempt_amount') && c.changed.every((k) => k === 'exempt_amount' || k === 'fee'));
      if (changes.length === 0) continue;
      const difference = changes.reduce((t, c) => t + c.new.fee - c.old.fee, 0);
      items.push({
        kind: 'usage_correction_due',
        key: `usage_correction_due:${invoice.id}`,
        summary: `The baseline left to ${changes.length} order(s) of invoice ${invoice.number ?? invoice.id} changed: orders of an earlier invoice of the month were voided or replaced`,
        cause: `Its orders are rated after the month's earlier invoices; re-rating it now changes them by ${difference} ${invoice.currency}.`,
        resolve: invoice.status === 'draft'
          ? 'Finalize the draft, then issue the correction from its re-rating page (a credit note or a correction invoice, with a reason).'
          : 'Issue the correction from the invoice\'s re-rating page (a credit note or a correction invoice, with a reason).',
        href: `/console/invoices/${invoice.id}/rerate`,
        customer: await customerOfSubscription(services, subscriptionId),
        invoice_id: invoice.id,
        amount: { amount: difference, currency: invoice.currency },
        since,
      });
    }
    return items;
  },
  async held_usage(services) {
    const items: Item[] = [];
    for (const m of await heldMonthDocs(services.knex, ATTENTION_SOURCE_CAP)) {
      const facts = await usageByOrderIds(services.knex, Object.keys(m.held));
      // Still held: not voided, not replaced since (same revision), not billed since.
      const candidates = Object.entries(m.held).filter(([id, h]) => {
        const f = facts.get(id);
        return f && f.correction?.kind !== 'voided' && (f.revision ?? 0) === h.revision;
      });
      const billed = await invoicesOfOrders(services.knex, candidates.map(([id]) => id));
      const held = candidates.filter(([id]) => !billed.has(id));
      if (held.length === 0) continue;
      const first = held.reduce((a, b) => (b[1].held_at < a[1].held_at ? b : a));
      items.push({
        kind: 'held_usage',
        key: `held_usage:${m.subscription_id}/${m.period}`,
        summary: `${held.length} order(s) of ${m.period} of subscription ${m.subscription_id} are held out of its invoices`,
        cause: `They cannot be rated: ${first[0]}: ${first[1].reasons}${held.length > 1 ? '; ...' : ''} (billing.usage.list with billing_state held lists them all).`,
        resolve: 'Replace each with corrected facts or void it, with a reason (usage page); fixed orders are billed on the month\'s next supplementary invoice.',
        href: `/console/usage?subscription_id=${m.subscription_id}&period=${m.period}&billing_state=held`,
        customer: await customerOfSubscription(services, m.subscription_id),
        invoice_id: null,
        amount: null,
        since: first[1].held_at,
      });
    }
    return items;
  },
  async stalled_read_model(services) {
    const now = services.clock.now().getTime();
    return notReady(await services.runner.statuses()).map((s) => ({
      kind: 'stalled_read_model' as const,
      key: `stalled_read_model:${s.name}`,
      summary: s.failure ? `Read model ${s.name} stopped at an event it cannot apply` : `Read model ${s.name} is ${Math.round(s.lag_seconds)} s behind the log`,
      cause: s.failure ? `${s.failure.type} ${s.failure.event_id} in ${s.failure.stream_id}: ${s.failure.error}: ${s.failure.message}` : 'Its projector is slow, stopped or not running.',
      resolve: s.failure
        ? `Fix the cause and retry (core-server projections retry ${s.name}), or skip the event with a reason (core-server projections skip ${s.name} --event ${s.failure.event_id} --reason "...").`
        : 'Check that the projector processes run (core-server project) and what they log.',
      href: '/console/health',
      customer: null,
      invoice_id: null,
      amount: null,
      since: s.failure?.failed_at ?? new Date(now - s.lag_seconds * 1000).toISOString(),
    }));
  },
  async webhook_endpoint_failing(services) {
    const items: Item[] = [];
    for (const e of await failingWebhookEndpoints(services.knex, ATTENTION_SOURCE_CAP)) {
      const customer = e.organization_id ? await customerOfOrganization(services.knex, e.organization_id) : null;
      items.push({
        kind: 'webhook_endpoint_failing',
        key: `webhook_endpoint_failing:${e.id}`,
        summary: `Webhook endpoint ${e.url} was disabled: every delivery failed for 3 days`,
        cause: 'The endpoint answered with an error, or not at all, on every attempt for 3 days (billing.webhook-deliveries.list shows each attempt and its answer).',
        resolve: 'Have the receiver fixed, then enable the endpoint (billing.webhook-endpoints.enable): its undelivered events go then, oldest first. Or remove it.',
        href: `/console/attention?kind=webhook_endpoint_failing#${e.id}`,
        customer: customer ? { id: customer.id, name: customer.name } : null,
        invoice_id: null,
        amount: null,
        since: e.disabled_at ?? e.updated_at,
      });
    }
    return items;
  },
  async unreadable_stream(services) {
    return (await listUnreadableStreams(services.knex)).slice(0, ATTENTION_SOURCE_CAP).map((u) => ({
      kind: 'unreadable_stream' as const,
      key: `unreadable_stream:${u.stream_id}`,
      summary: `Stream ${u.stream_id} cannot be read: its commands answer 409 stream_unreadable`,
      cause: `Event #${u.revision} (${u.type}, ${u.event_id}): ${u.error}`,
      resolve: 'Repair the event (an upcaster for its type, or the corrected row), then run core-server projections forget-stream ' + u.stream_id + '.',
      href: '/console/health',
      customer: null,
      invoice_id: null,
      amount: null,
      since: u.first_seen_at,
    }));
  },
};

/** The billing customer of a subscription's organization, or null. */
async function customerOfSubscription(services: Services, subscriptionId: string): Promise<Item['customer']> {
  const sub = await subscriptionById(services.knex, subscriptionId);
  const customer = sub ? await customerOfOrganization(services.knex, sub.organization_id) : null;
  return customer ? { id: customer.id, name: customer.name } : null;
}

/** Every item of every kind, oldest first (the Needs attention page, its navigation count and the metric). */
export async function attentionItems(services: Services): Promise<Item[]> {
  const all = (await Promise.all(ATTENTION_KINDS.map((k) => sources[k](services)))).flat();
  return all.sort((a, b) => a.since.localeCompare(b.since) || a.key.localeCompare(b.key));
}

/** How many items of each kind (every kind, 0 included). */
export function attentionCounts(items: Item[]): { kind: Kind; count: number }[] {
  return ATTENTION_KINDS.map((kind) => ({ kind, count: items.filter((i) => i.kind === kind).length }));
}

const Cursor = cursorShape(cursorParts.instant, cursorParts.attentionKey);

/** billing.attention.list */
export const attentionList = operation({
  id: 'billing.attention.list',
  examples: {
    request: { kind: 'refund_due' },
    response: {
      items: [
        {
          kind: 'refund_due',
          key: 'invoice_branding',
          summary: 'summary',
          cause: 'cause',
          resolve: 'resolve',
          href: 'href',
          customer: null,
          invoice_id: null,
          amount: null,
          since: '2026-01-15T09:30:00.000Z',
        },
      ],
      pagination: null,
      counts: { total: 12000, by_kind: [{ kind: 'refund_due', count: 1 }] },
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'What needs a person: refunds due, unrecorded provider charges, failed automatic collections, usage months that cannot be invoiced, held usage, invoices whose usage was corrected after invoicing, stalled read models and unreadable streams, oldest first, each with its cause and where it is resolved.',
  description: 'Billing staff. Counts cover every kind whatever `kind` filters. Extension operation (the console\'s Needs attention page).',
  request: AttentionListRequest,
  response: AttentionListResponse,
  error: 'billing.AttentionListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'billing_staff',
  async handle(ctx, req) {
    const all = await attentionItems(ctx.services);
    const counts = attentionCounts(all);
    const after = req.cursor ? decodeCursor(req.cursor, Cursor) : null;
    const wanted = all.filter((i) => (!req.kind || i.kind === req.kind) && (!after || i.since > after[0] || (i.since === after[0] && i.key > after[1])));
    const items = wanted.slice(0, req.limit);
    const last = items.at(-1);
    return {
      items,
      pagination: wanted.length > req.limit && last ? { cursor: encodeCursor([last.since, last.key]) } : null,
      counts: { total: all.length, by_kind: counts },
    };
  },
});

/** Read operations of the attention list. */
export const billingAttentionQueries = [attentionList];
