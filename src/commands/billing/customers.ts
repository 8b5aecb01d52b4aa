// billing.customers.insert, .update, .remove: commands on the customer aggregate.
import { operation } from '../../contract/operation.ts';
import { forbidden } from '../../domain/errors.ts';
import { hasRole } from '../../context.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { CustomerCreateRequest, CustomerDetailItem, CustomerRemoveRequest, CustomerUpdateRequest } from '../../contract/schemas/billing-customers.ts';
import { nameId } from '../../ids.ts';
import { recentCustomer, visibleCustomer } from '../../queries/billing/customers.ts';
import { openInvoiceCount } from '../../queries/billing/invoices.ts';
import { organizations } from '../identity/handlers.ts';
import { RequiredStreamMissingError } from '../../eventstore/port.ts';
import { customers } from './handlers.ts';
import { billingCustomersProjection } from '../../projections/billing/customers.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { customersErase } from './customer-erasure.ts';

/** A customer's id is derived from its organization: one customer per organization, enforced by the stream. */
export function customerIdOf(organizationId: string): string {
  return nameId('billing-customer', organizationId);
}

export const customersInsert = operation({
  id: 'billing.customers.insert',
  examples: {
    request: { name: 'Acme Repairs Ltd', email: 'billing@acme-repairs.example', currency: 'GBP' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      name: 'Acme Repairs Ltd',
      email: 'billing@acme-repairs.example',
      billing_address: { line1: '1 High Street', line2: 'Unit 4', city: 'Leeds', postal_code: 'LS1 1AA', region: 'West Yorkshire', country: 'GB' },
      currency: 'GBP',
      payment_terms_days: 30,
      tax_id: '01932c1e-62c5-7557-8139-e2fb0e9c3195',
      metadata: {},
      status: 'active',
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Creates the billing customer of an organization.',
  description: 'Each organization has at most one billing customer. Org owners and admins create their own; billing staff may create one for any organization.',
  request: CustomerCreateRequest,
  response: CustomerDetailItem,
  error: 'billing.CustomerInsertError',
  errors: billingErrors.list('organization_not_found', 'customer_exists'),
  access: 'org_admin',
  write: true,
  readModels: [billingCustomersProjection],
  async handle(ctx, req) {
    const own = ctx.auth.kind === 'session' ? ctx.auth.organizationId : null;
    const organizationId = req.organization_id ?? own;
    if (!organizationId) throw ctx.errors.error('invalid_request', 'organization_id is required.', { issues: [{ path: 'organization_id', message: 'required' }] });
    if (organizationId !== own && !hasRole(ctx.auth, 'billing_staff')) throw forbidden('Only billing staff may create a customer for another organization.');
    const id = customerIdOf(organizationId);
    const { metadata, tax_id, billing_address, ...rest } = req;
    // The organization must exist in the log (checked by the append itself, so no read model lag and no round trip of its own).
    const res = await customers
      .run(ctx, id, {
        type: 'CreateCustomer',
        data: { ...rest, organization_id: organizationId, customer_id: id, billing_address: billing_address ?? null, tax_id: tax_id ?? null, metadata },
      }, { orgId: organizationId, expectNew: true, requireStream: organizations.stream(organizationId) })
      .catch((err: unknown) => {
        throw err instanceof RequiredStreamMissingError ? ctx.errors.error('organization_not_found', `No organization ${organizationId}.`) : err;
      });
    await ctx.readYourWrites();
    // The document the projection committed for this write is the answer: no read back (the caller may see it: checked above).
    return recentCustomer(ctx.services.knex, id, res.position) ?? visibleCustomer(ctx, id);
  },
});

export const customersUpdate = operation({
  id: 'billing.customers.update',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      name: 'Acme Repairs Ltd',
      email: 'billing@acme-repairs.example',
      billing_address: { line1: '1 High Street', line2: 'Unit 4', city: 'Leeds', postal_code: 'LS1 1AA', region: 'West Yorkshire', country: 'GB' },
      currency: 'GBP',
      payment_terms_days: 30,
      tax_id: '01932c1e-62c5-7557-8139-e2fb0e9c3195',
      metadata: {},
      status: 'active',
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Changes a billing customer\'s details; omitted fields stay as they are.',
  request: CustomerUpdateRequest,
  response: CustomerDetailItem,
  error: 'billing.CustomerUpdateError',
  errors: billingErrors.list('customer_not_found', 'customer_removed', 'customer_erased'),
  access: 'org_admin',
  write: true,
  readModels: [billingCustomersProjection],
  async handle(ctx, req) {
    const doc = await visibleCustomer(ctx, req.id);
    const { id, ...changes } = req;
    await customers.run(ctx, id, { type: 'UpdateCustomer', data: { changes } }, { orgId: doc.organization_id });
    await ctx.readYourWrites();
    return visibleCustomer(ctx, id);
  },
});

export const customersRemove = operation({
  id: 'billing.customers.remove',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {},
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Removes a billing customer; refused while it has open invoices. Its history is kept.',
  request: CustomerRemoveRequest,
  response: Empty,
  error: 'billing.CustomerRemoveError',
  errors: billingErrors.list('customer_not_found', 'customer_removed', 'customer_erased', 'customer_has_open_invoices'),
  access: 'org_admin',
  write: true,
  readModels: [billingCustomersProjection],
  async handle(ctx, req) {
    const doc = await visibleCustomer(ctx, req.id);
    const open = await openInvoiceCount(ctx.services.knex, req.id);
    await customers.run(ctx, req.id, { type: 'RemoveCustomer', data: { open_invoices: open } }, { orgId: doc.organization_id });
    await ctx.readYourWrites();
    return {};
  },
});

/** Write operations of billing customers. */
export const billingCustomerCommands = [customersInsert, customersUpdate, customersRemove, customersErase];
