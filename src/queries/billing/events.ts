// billing.events.get and .list, reading billing_events (written by projections/billing/events.ts).
import { operation } from '../../contract/operation.ts';

import { callerOrg, hasRole } from '../../context.ts';
import { Uuid } from '../../contract/schemas/common.ts';
import { ActivityListPage, ActivityListRequest, EventDetailItem, EventListPage, EventListRequest } from '../../contract/schemas/billing-events.ts';
import { shownUser, usersByIds } from '../identity/identity.ts';
import type { BillingEventDoc } from '../../projections/billing/events.ts';
import { cursorParts, cursorShape, decodeCursor, encodeCursor, keysetPage } from '../pagination.ts';
import { canSeeOrganization } from './customers.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { exampleFinalizedEvent, exampleIds } from '../../contract/examples/billing.ts';

export const eventsGet = operation({
  id: 'billing.events.get',
  examples: { request: exampleFinalizedEvent.id, response: exampleFinalizedEvent },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Returns one billing event.',
  description: "The body is the event's UUID as a JSON string. Another organization's event is 404, like a missing one.",
  request: Uuid,
  response: EventDetailItem,
  error: 'billing.EventGetError',
  errors: billingErrors.list('event_not_found'),
  access: 'org_user',
  async handle(ctx, id) {
    const row = (await ctx.services.knex('billing_events').where({ id }).first('organization_id', 'staff_only', 'doc')) as { organization_id: string | null; staff_only: boolean; doc: BillingEventDoc } | undefined;
    const staff = hasRole(ctx.auth, 'billing_staff');
    if (!row || !(staff || (!row.staff_only && row.organization_id !== null && canSeeOrganization(ctx, row.organization_id)))) throw ctx.errors.error('event_not_found', `No billing event ${id} in this organization.`);
    return row.doc;
  },
});

export const eventsList = operation({
  id: 'billing.events.list',
  examples: {
    request: { types: ['invoice.finalized'], subject: { type: 'invoice', id: exampleIds.invoice }, occurred_from: '2026-01-01T00:00:00.000Z', organization_id: exampleIds.organization },
    response: { items: [exampleFinalizedEvent], pagination: null },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists the billing events the caller may see, oldest first (log order), with filters and keyset pagination.',
  description: "An organization's users see its own events (not those of draft invoices, which they cannot see yet); billing staff see every organization's.",
  request: EventListRequest,
  response: EventListPage,
  error: 'billing.EventListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'org_user',
  async handle(ctx, req) {
    const q = ctx.services.knex('billing_events').select('position', 'doc');
    if (!hasRole(ctx.auth, 'billing_staff')) q.where({ organization_id: callerOrg(ctx.auth), staff_only: false });
    if (req.organization_id) q.where('organization_id', req.organization_id);
    if (req.types) q.whereIn('type', req.types);
    if (req.subject) q.where({ subject_type: req.subject.type, subject_id: req.subject.id });
    if (req.subject_type) q.where('subject_type', req.subject_type);
    if (req.occurred_from) q.where('occurred_at', '>=', req.occurred_from);
    if (req.occurred_before) q.where('occurred_at', '<', req.occurred_before);
    const res = await keysetPage<{ position: string; doc: BillingEventDoc }>(q, { columns: ['position'], shape: cursorShape(cursorParts.position), limit: req.limit, cursor: req.cursor, key: (r) => [r.position] });
    return { items: res.rows.map((r) => r.doc), pagination: res.pagination };
  },
});

type ActorType = 'user' | 'staff' | 'integration' | 'system';
const ACTOR_TYPES: readonly string[] = ['user', 'staff', 'integration', 'system'];

export const activityList = operation({
  id: 'billing.activity.list',
  examples: {
    request: { subject_type: 'customer', organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679' },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          type: 'customer.updated',
          occurred_at: '2026-01-15T09:30:00.000Z',
          subject: { type: 'customer', id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329' },
          data: {},
          organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
          actor: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70', name: 'Dana Staff', email: 'dana@billing.example' },
          reason: 'Agreed with the customer by phone',
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'What changed across every organization, newest first: each billing feed event with who made it (and their name) and why (extension).',
  description: 'Billing staff only. Filter by the person (actor_id), the kind of resource, the organization and a time range; keyset pagination (newest first). '
    + 'Changes recorded before this service kept the actor on the feed read as made by the system until the feed is rebuilt.',
  request: ActivityListRequest,
  response: ActivityListPage,
  error: 'billing.ActivityListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'billing_staff',
  async handle(ctx, req) {
    const knex = ctx.services.knex;
    const q = knex('billing_events').select('position', 'doc', 'organization_id', 'actor_type', 'actor_id', 'reason');
    if (req.actor_id) q.where('actor_id', req.actor_id);
    if (req.subject_type) q.where('subject_type', req.subject_type);
    if (req.organization_id) q.where('organization_id', req.organization_id);
    if (req.occurred_from) q.where('occurred_at', '>=', req.occurred_from);
    if (req.occurred_before) q.where('occurred_at', '<', req.occurred_before);
    // Newest first: the page after a cursor holds the positions before it.
    if (req.cursor) q.where('position', '<', decodeCursor(req.cursor, cursorShape(cursorParts.position))[0]);
    const rows = (await q.orderBy('position', 'desc').limit(req.limit + 1)) as { position: string; doc: BillingEventDoc; organization_id: string | null; actor_type: string | null; actor_id: string | null; reason: string | null }[];
    const pageRows = rows.slice(0, req.limit);
    const people = await usersByIds(knex, [...new Set(pageRows.filter((r) => (r.actor_type === 'user' || r.actor_type === 'staff') && r.actor_id && /^[0-9a-f-]{36}$/i.test(r.actor_id)).map((r) => r.actor_id ?? ''))]);
    const last = pageRows.at(-1);
    return {
      items: pageRows.map((r) => {
        const found = r.actor_id ? people.get(r.actor_id) : undefined;
        const who = found && shownUser(found);
        const type = (ACTOR_TYPES.includes(r.actor_type ?? '') ? r.actor_type : 'system') as ActorType;
        return { ...r.doc, organization_id: r.organization_id, actor: { type, id: r.actor_id, name: who?.name ?? null, email: who?.email ?? null }, reason: r.reason };
      }),
      pagination: rows.length > req.limit && last ? { cursor: encodeCursor([last.position]) } : null,
    };
  },
});

/** Read operations of the billing event feed. */
export const billingEventQueries = [eventsGet, eventsList, activityList];
