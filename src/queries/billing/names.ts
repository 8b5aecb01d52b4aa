// billing.names.list: the names behind a screenful of ids in one call (customers with their organization, organizations,
// users, subscriptions, products), each read through its own query module.
import { operation } from '../../contract/operation.ts';
import { NamesListRequest, NamesListResponse } from '../../contract/schemas/billing-names.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { organizationsByIds, shownUser, usersByIds } from '../identity/identity.ts';
import { suspendedAmong } from './access.ts';
import { customersByIds, customersOfOrganizations } from './customers.ts';
import { productsByIds } from './products.ts';
import { subscriptionsByIds } from './subscriptions.ts';

const uniq = (ids: string[] | undefined) => [...new Set(ids ?? [])];

export const namesList = operation({
  id: 'billing.names.list',
  examples: {
    request: { customers: ['0193a7a1-3f4c-7cb7-8452-4e44dfdad329'], users: ['019312de-a96f-7c20-8935-66ab75692c99'] },
    response: {
      customers: [{ id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329', name: 'Acme Repairs Ltd', email: 'billing@acme-repairs.example', status: 'active', suspended: false, organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679', organization_name: 'Acme Repairs' }],
      organizations: [],
      users: [{ id: '019312de-a96f-7c20-8935-66ab75692c99', name: 'Dana Staff', email: 'dana@billing.example' }],
      subscriptions: [],
      products: [],
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'The names behind ids: customers (with their organization and suspension), organizations, users, subscriptions and products (extension).',
  description: 'Billing staff only. Each list answers the ids of its kind that exist; an unknown id is left out, not an error. Up to 200 ids of each kind.',
  request: NamesListRequest,
  response: NamesListResponse,
  error: 'billing.NamesListError',
  errors: billingErrors.list(),
  access: 'billing_staff',
  async handle(ctx, req) {
    const knex = ctx.services.knex;
    const [customers, subscriptions, products, users] = await Promise.all([
      customersByIds(knex, uniq(req.customers)),
      subscriptionsByIds(knex, uniq(req.subscriptions)),
      productsByIds(knex, uniq(req.products)),
      usersByIds(knex, uniq(req.users)),
    ]);
    const orgIds = uniq([...(req.organizations ?? []), ...[...customers.values()].map((c) => c.organization_id), ...[...subscriptions.values()].map((s) => s.organization_id)]);
    const [orgs, orgCustomers, suspended] = await Promise.all([
      organizationsByIds(knex, orgIds),
      customersOfOrganizations(knex, orgIds),
      suspendedAmong(knex, [...customers.keys()]),
    ]);
    const orgName = (id: string) => orgs.get(id)?.name ?? null;
    return {
      customers: [...customers.values()].map((c) => ({ id: c.id, name: c.name, email: c.email, status: c.status, suspended: suspended.has(c.id), organization_id: c.organization_id, organization_name: orgName(c.organization_id) })),
      organizations: uniq(req.organizations).flatMap((id) => { const o = orgs.get(id); return o ? [{ id, name: o.name, customer_id: orgCustomers.get(id)?.id ?? null }] : []; }),
      // An erased user: "erased user", with its email as every read of it now answers, "[erased]".
      users: [...users.values()].map((u) => ({ id: u.id, name: shownUser(u).name, email: u.email })),
      subscriptions: [...subscriptions.values()].map((s) => ({ id: s.id, status: s.status, organization_id: s.organization_id, organization_name: orgName(s.organization_id), customer_id: orgCustomers.get(s.organization_id)?.id ?? null })),
      products: [...products.values()].map((p) => ({ id: p.id, name: p.name })),
    };
  },
});

/** Read operations of names. */
export const billingNameQueries = [namesList];
