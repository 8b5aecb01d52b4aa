// billing.configuration.history.get: newest first, bounded, answerable as of a past instant.
import { operation } from '../../../contract/operation.ts';
import { ConfigurationHistoryRequest, ConfigurationHistoryResponse } from '../../../contract/schemas/billing-configuration.ts';
import { configurationErrors } from '../../../domain/billing/configuration/errors.ts';
import type { HistoryDoc } from '../../../projections/billing/configuration/configuration.ts';
import { cursorParts, cursorShape, decodeCursor, encodeCursor } from '../../pagination.ts';
import { baselineBody, pricingBody } from './details.ts';
import { asOfOf } from './resolve.ts';
import { configuredSubscription } from './snapshot.ts';
import { historySlice } from './configuration.ts';

/** The API body of one history entry. */
function entryBody(doc: HistoryDoc) {
  const r = doc.revision;
  return {
    id: doc.id,
    kind: doc.kind,
    recorded_at: doc.recorded_at,
    actor: doc.actor,
    reason: doc.reason,
    baseline: r?.kind === 'baseline' ? baselineBody(r) : null,
    pricing: r?.kind === 'pricing' ? pricingBody(r) : null,
    relationship_id: doc.relationship_id,
    claim_status: doc.claim_status === 'none' ? null : doc.claim_status,
    supersedes: doc.superseded,
  };
}

export const configurationHistoryGet = operation({
  id: 'billing.configuration.history.get', surface: 'core', tags: ['Billing'],
  examples: {
    request: { subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd' },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          kind: 'baseline',
          recorded_at: '2026-01-15T09:30:00.000Z',
          actor: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
          reason: 'Agreed with the customer by phone',
          baseline: null,
          pricing: null,
          relationship_id: null,
          claim_status: null,
          supersedes: [{ revision_id: '0193f476-7cdf-7c0e-8804-1514e5a94be8', effective_from: '2026-01-15T09:30:00.000Z', effective_to: null }],
        },
      ],
      pagination: null,
    },
  },
  summary: 'Bounded revision history.',
  description: 'Baseline and pricing revisions and relationship claims and decisions of a subscription, newest first, each with who, when, why and what it superseded; limit 1-100 (default 50), cursor for the next page; as_of answers with what was recorded by then. Billing staff only.',
  request: ConfigurationHistoryRequest, response: ConfigurationHistoryResponse, error: 'billing.ConfigurationHistoryError',
  errors: configurationErrors.list('subscription_not_found', 'invalid_as_of', 'invalid_cursor'), access: 'billing_staff',
  async handle(ctx, req) {
    const asOf = asOfOf(ctx.now, req.as_of);
    await configuredSubscription(ctx, req.subscription_id);
    const before = req.cursor ? decodeCursor(req.cursor, cursorShape(cursorParts.instant, cursorParts.uuid)) : undefined;
    const rows = await historySlice(ctx.services.knex, req.subscription_id, { asOf, limit: req.limit, before });
    const pageRows = rows.slice(0, req.limit);
    const last = pageRows.at(-1);
    return {
      items: pageRows.map((r) => entryBody(r.doc)),
      pagination: rows.length > req.limit && last ? { cursor: encodeCursor([new Date(last.recorded_at).toISOString(), last.id]) } : null,
    };
  },
});
