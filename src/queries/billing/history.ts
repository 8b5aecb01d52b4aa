// billing.history.get: who changed a billing entity, when and why, and what it looked like at any instant,
// replayed from the event log through the entity's own decider (the log is the audit trail).
import { operation } from '../../contract/operation.ts';
import { HistoryGetRequest, HistoryGetResponse, type HISTORY_SUBJECT_TYPES } from '../../contract/schemas/billing-history.ts';
import type { RequestContext } from '../../context.ts';
import { attachmentDecider } from '../../domain/billing/attachment.ts';
import { creditNoteRequestDecider } from '../../domain/billing/credit-note-request.ts';
import { customerDecider } from '../../domain/billing/customer.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { configurationErrors } from '../../domain/billing/configuration/errors.ts';
import { relationshipDecider } from '../../domain/billing/configuration/relationship.ts';
import { revisionDecider } from '../../domain/billing/configuration/revisions.ts';
import { errorCatalogue } from '../../domain/errors.ts';
import { revisionDocs } from './configuration/configuration.ts';
import { invoiceDecider } from '../../domain/billing/invoice.ts';
import { noteDecider } from '../../domain/billing/note.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { getUser, shownUser } from '../identity/identity.ts';
import { cursorParts, cursorShape, decodeCursor, encodeCursor } from '../pagination.ts';
import { getPaymentDoc } from './payments.ts';
import { type Replay, changes, isRecord, replayer } from './history-replay.ts';
import { listSkips } from '../../projections/engine/health.ts';
import { exampleCustomer, exampleIds } from '../../contract/examples/billing.ts';
import { layeredGet, layeredRecord } from '../../domain/layered.ts';

/** Most events one history replays (a guard; real entities have far fewer). */
const MAX_EVENTS = 20_000;

type SubjectType = (typeof HISTORY_SUBJECT_TYPES)[number];

/** The codes of this operation: billing's and configuration's not-found codes, and a revision's own. */
const historyErrors = errorCatalogue({ ...billingErrors.statuses, ...configurationErrors.statuses, revision_not_found: 404 });

/** How one kind of subject is found in the log: its stream, which of the stream's events are its own, and how its state is replayed. */
interface SubjectKind {
  notFound: Parameters<typeof historyErrors.error>[0];
  stream(ctx: RequestContext, id: string): Promise<string | null>;
  replay(id: string): Replay;
  owns?(event: RecordedEvent, id: string): boolean;
}

const own = (prefix: string) => async (_ctx: RequestContext, id: string) => `${prefix}-${id}`;

/** Every kind of subject; the billing configuration adds its relationships and revisions here. */
const KINDS: Record<SubjectType, SubjectKind> = {
  customer: { notFound: 'customer_not_found', stream: own('customer'), replay: () => replayer(customerDecider) },
  // The state as it reads (its payments one record, not the layers they are kept in).
  invoice: { notFound: 'invoice_not_found', stream: own('invoice'), replay: () => replayer(invoiceDecider, (s) => ({ ...s, payments: layeredRecord(s.payments) })) },
  credit_note_request: { notFound: 'credit_note_request_not_found', stream: own('creditnoterequest'), replay: () => replayer(creditNoteRequestDecider) },
  note: { notFound: 'note_not_found', stream: own('note'), replay: () => replayer(noteDecider) },
  attachment: { notFound: 'attachment_not_found', stream: own('attachment'), replay: () => replayer(attachmentDecider) },
  relationship: { notFound: 'relationship_not_found', stream: own('billingrelationship'), replay: () => replayer(relationshipDecider) },
  // Baseline and pricing revisions share their subscription's configuration stream: replay it, show the revision, list its own event.
  revision: {
    notFound: 'revision_not_found',
    stream: async (ctx, id) => {
      const doc = (await revisionDocs(ctx.services.knex, [id])).get(id);
      return doc ? `billingconfiguration-${doc.subscription_id}` : null;
    },
    replay: (id) => replayer(revisionDecider, (s) => {
      const baseline = s.baseline.find((r) => r.revision_id === id);
      const pricing = s.pricing.find((r) => r.revision_id === id);
      return baseline ? { kind: 'baseline', ...baseline } : pricing ? { kind: 'pricing', ...pricing } : null;
    }),
    owns: (e, id) => typeof e.data === 'object' && e.data !== null && 'revision_id' in e.data && e.data.revision_id === id,
  },
  // A payment is part of its invoice's aggregate: replay the invoice, show the payment, list only its events.
  payment: {
    notFound: 'payment_not_found',
    stream: async (ctx, id) => {
      const doc = await getPaymentDoc(ctx.services.db, id);
      return doc ? `invoice-${doc.invoice_id}` : null;
    },
    replay: (id) => replayer(invoiceDecider, (s) => {
      const p = layeredGet(s.payments, id);
      return p && s.ref ? { payment_id: id, invoice_id: s.ref.invoice_id, currency: s.ref.currency, ...p } : null;
    }),
    owns: (e, id) => typeof e.data === 'object' && e.data !== null && 'payment_id' in e.data && e.data.payment_id === id,
  },
};

/** billing.history.get */
export const historyGet = operation({
  id: 'billing.history.get',
  examples: {
    request: { subject: { type: 'customer', id: exampleIds.customer } },
    response: {
      items: [
        {
          event_id: '0193c1a7-6e02-7d4b-8f15-2c9a7b3e5d81',
          type: 'CustomerUpdated',
          revision: 1,
          recorded_at: '2026-01-20T14:05:00.000Z',
          actor: { type: 'user', id: '0193a9f0-2b6d-7e14-8c3a-5d9e1f7b2c40', name: 'Dana Whitfield', email: 'dana@billing.example' },
          reason: 'Customer asked by phone to send invoices to accounts',
          request_id: '0193167d-3247-71e6-867f-189aed52e182',
          data: { changes: { email: 'accounts@acme-repairs.example' }, updated_at: '2026-01-20T14:05:00.000Z' },
          changes: [{ path: 'email', before: exampleCustomer.email, after: 'accounts@acme-repairs.example' }],
          unreadable: null,
          skipped_by: [],
        },
      ],
      pagination: null,
      subject: { type: 'customer', id: exampleIds.customer },
      stream: `customer-${exampleIds.customer}`,
      as_of: null,
      exists: true,
      state: { name: exampleCustomer.name, email: 'accounts@acme-repairs.example', currency: 'GBP', removed: false },
      event_count: 2,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'The audit timeline of a customer, invoice, payment, credit note request, note, attachment, configuration relationship or revision, and its state as of any instant, replayed from the event log.',
  description:
    'Every event of the entity, oldest first, with its actor (and their name), time, reason and the fields of the entity it changed; '
    + '`state` is what the entity looked like at `as_of` (default now), rebuilt by replaying its events through the same aggregate that decides its commands. '
    + 'A reason comes from the request that made the change: a body field where the operation has one, else the `Svc-Reason` header. Extension operation.',
  request: HistoryGetRequest,
  response: HistoryGetResponse,
  error: 'billing.HistoryGetError',
  errors: historyErrors.list('customer_not_found', 'invoice_not_found', 'payment_not_found', 'credit_note_request_not_found', 'note_not_found', 'attachment_not_found', 'relationship_not_found', 'revision_not_found', 'invalid_cursor'),
  access: 'billing_staff',
  async handle(ctx, req) {
    const kind = KINDS[req.subject.type];
    // The code depends on the subject kind: declared above, checked in test runs.
    const missing = () => historyErrors.error(kind.notFound, `No ${req.subject.type.replaceAll('_', ' ')} ${req.subject.id}.`);
    const stream = await kind.stream(ctx, req.subject.id);
    if (!stream) throw missing();
    const asOf = req.as_of ? new Date(req.as_of) : null;
    const all: RecordedEvent[] = [];
    // currentKeys: what staff see of an erased customer is erased at once, whichever process erased them.
    for await (const e of ctx.store.readStream(stream, { maxCount: MAX_EVENTS, currentKeys: true })) {
      if (asOf && e.createdAt > asOf) break;
      all.push(e);
    }
    const { steps, state } = kind.replay(req.subject.id)(all);
    const mine = kind.owns ? steps.filter((s) => kind.owns?.(s.recorded, req.subject.id)) : steps;
    if (mine.length === 0 && !asOf) throw missing();
    const after = req.cursor ? decodeCursor(req.cursor, cursorShape(cursorParts.revision))[0] : -1;
    const rest = mine.filter((s) => Number(s.recorded.revision) > after);
    const pageSteps = rest.slice(0, req.limit);
    const names = await actorNames(ctx, pageSteps.map((s) => s.recorded.metadata.actor));
    const skips = await listSkips(ctx.services.knex, { streamId: stream });
    const last = pageSteps.at(-1);
    return {
      subject: req.subject,
      stream,
      as_of: asOf ? asOf.toISOString() : null,
      exists: mine.length > 0 && state !== null,
      state: mine.length > 0 && isRecord(state) ? state : null,
      event_count: mine.length,
      items: pageSteps.map((s) => {
        const m = s.recorded.metadata;
        const who = m.actor ? names.get(m.actor.id) : undefined;
        return {
          event_id: s.recorded.id,
          type: s.recorded.type,
          revision: Number(s.recorded.revision),
          recorded_at: s.recorded.createdAt.toISOString(),
          actor: { type: m.actor?.type ?? 'system', id: m.actor?.id ?? 'unknown', name: who?.name ?? null, email: who?.email ?? null },
          reason: m.reason ?? null,
          request_id: m.request_id ?? null,
          data: s.data,
          changes: changes(s.before, s.after),
          unreadable: s.unreadable,
          skipped_by: skips.filter((k) => k.event_id === s.recorded.id).map(({ projection, reason, actor, skipped_at }) => ({ projection, reason, actor, skipped_at })),
        };
      }),
      pagination: last && rest.length > pageSteps.length ? { cursor: encodeCursor([Number(last.recorded.revision)]) } : null,
    };
  },
});

// Names and emails of the users and staff among the actors (one lookup each).
async function actorNames(ctx: RequestContext, actors: ({ type: string; id: string } | undefined)[]): Promise<Map<string, { name: string; email: string | null }>> {
  const out = new Map<string, { name: string; email: string | null }>();
  const ids = new Set(actors.filter((a) => a && (a.type === 'user' || a.type === 'staff')).map((a) => a?.id ?? ''));
  for (const id of ids) {
    const user = /^[0-9a-f-]{36}$/i.test(id) ? await getUser(ctx.services.knex, id) : null;
    if (user) out.set(id, shownUser(user));
  }
  return out;
}

/** Read operations of the audit history. */
export const billingHistoryQueries = [historyGet];
