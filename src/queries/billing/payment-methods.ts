// billing.payment-methods.list and the setup reads, over billing_payment_method_setups and billing_payment_profiles (projections/billing/payment-methods.ts).
import type { Knex } from 'knex';
import type { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import type { RequestContext } from '../../context.ts';
import { PaymentMethodSetupItem, PaymentMethodsListRequest, PaymentMethodsListResponse } from '../../contract/schemas/billing-payment-methods.ts';
import type { ProfileDoc, SetupDoc } from '../../projections/billing/payment-methods.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { canSeeOrganization, visibleCustomer } from './customers.ts';

/** A setup document, or null. */
export async function getSetupDoc(knex: Knex, id: string): Promise<SetupDoc | null> {
  const row = await knex('billing_payment_method_setups').where({ id }).first('doc');
  return row ? (row.doc as SetupDoc) : null;
}

/** A setup the caller may see; another organization's is 404 like a missing one. */
export async function visibleSetup(ctx: RequestContext, id: string): Promise<SetupDoc> {
  const doc = await getSetupDoc(ctx.services.knex, id);
  if (!doc || !canSeeOrganization(ctx, doc.organization_id)) throw billingErrors.error('setup_not_found', `No payment-method setup ${id}.`);
  return doc;
}

/** The API body of a setup. */
export function setupItem(d: SetupDoc): z.output<typeof PaymentMethodSetupItem> {
  return { id: d.id, customer_id: d.customer_id, type: d.type, status: d.status, next_action: d.next_action, payment_method_id: d.payment_method_id, failure: d.failure, created_at: d.created_at, updated_at: d.updated_at };
}

/** A customer's profile document, or null before any setup. */
export async function getProfileDoc(knex: Knex, customerId: string): Promise<ProfileDoc | null> {
  const row = await knex('billing_payment_profiles').where({ id: customerId }).first('doc');
  return row ? (row.doc as ProfileDoc) : null;
}

/** billing.payment-methods.list */
export const paymentMethodsList = operation({
  id: 'billing.payment-methods.list',
  examples: {
    request: { customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329' },
    response: {
      customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          type: 'card',
          brand: 'brand',
          last4: 'last4',
          exp_month: null,
          exp_year: null,
          bank_name: 'bank name',
          mandate_reference: 'mandate reference',
          is_default: false,
          created_at: '2026-01-15T09:30:00.000Z',
        },
      ],
      mandate: null,
      collection: { auto_collection: false, default_payment_method_id: '0193ff8b-2f34-7577-85f1-a08c2f0ce468' },
      resumable_setup: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Active methods, mandate, collection profile and any resumable setup of a customer.',
  request: PaymentMethodsListRequest,
  response: PaymentMethodsListResponse,
  error: 'billing.PaymentMethodsListError',
  errors: billingErrors.list('customer_not_found'),
  access: 'org_user',
  async handle(ctx, req) {
    await visibleCustomer(ctx, req.customer_id);
    const knex = ctx.services.knex;
    const profile = await getProfileDoc(knex, req.customer_id);
    const pending = await knex('billing_payment_method_setups').where({ customer_id: req.customer_id }).whereIn('status', ['requires_action', 'processing']).orderBy('created_at', 'desc').first('doc');
    const methods = profile?.methods ?? [];
    const bank = methods.find((m) => m.type === 'bank_debit' && m.mandate_reference);
    return {
      customer_id: req.customer_id,
      items: methods.map(({ provider_ref: _p, ...m }) => ({ ...m, is_default: m.id === profile?.default_payment_method_id })),
      mandate: bank?.mandate_reference ? { payment_method_id: bank.id, reference: bank.mandate_reference, status: 'active' as const } : null,
      collection: { auto_collection: profile?.auto_collection ?? false, default_payment_method_id: profile?.default_payment_method_id ?? null },
      resumable_setup: pending ? setupItem(pending.doc as SetupDoc) : null,
    };
  },
});

/** Read operations of payment methods. */
export const billingPaymentMethodQueries = [paymentMethodsList];

/** Customers with automatic collection on and a default method, with that method. */
export async function autoCollectedCustomers(knex: Knex): Promise<{ customer_id: string; organization_id: string; method: ProfileDoc['methods'][number] }[]> {
  const rows = (await knex('billing_payment_profiles').where({ auto_collection: true }).orderBy('id').select('doc')) as { doc: ProfileDoc }[];
  return rows.flatMap(({ doc }) => {
    const method = doc.methods.find((m) => m.id === doc.default_payment_method_id);
    return method ? [{ customer_id: doc.customer_id, organization_id: doc.organization_id, method }] : [];
  });
}
