// billing.entitlements.list, reading billing_entitlements (written by projections/billing/entitlements.ts).
import type { Knex } from 'knex';
import { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { Entitlement } from '../../contract/schemas/billing-entitlements.ts';
import type { EntitlementDoc } from '../../projections/billing/entitlements.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

/** Every entitlement, by key. */
export async function allEntitlements(knex: Knex): Promise<EntitlementDoc[]> {
  return ((await knex('billing_entitlements').select('doc').orderBy('id')) as { doc: EntitlementDoc }[]).map((r) => r.doc);
}

/** One entitlement by key; 404 when there is none. */
export async function entitlementOrNotFound(knex: Knex, key: string): Promise<EntitlementDoc> {
  const row = await knex('billing_entitlements').where({ id: key }).first('doc');
  if (!row) throw billingErrors.error('entitlement_not_found', `No entitlement ${key}.`);
  return row.doc as EntitlementDoc;
}

export const entitlementsList = operation({
  id: 'billing.entitlements.list',
  examples: {
    request: null,
    response: [
      {
        key: 'invoice_branding',
        name: 'Acme Repairs Ltd',
        description: 'Monthly platform fee',
        created_at: '2026-01-15T09:30:00.000Z',
        updated_at: '2026-01-15T09:30:00.000Z',
      },
    ],
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists every entitlement, by key. Platform staff only.',
  request: null,
  response: z.array(Entitlement),
  error: 'billing.EntitlementsListError',
  errors: billingErrors.list(),
  access: 'platform_staff',
  handle: (ctx) => allEntitlements(ctx.services.knex),
});

/** Read operations of entitlements. */
export const billingEntitlementQueries = [entitlementsList];
