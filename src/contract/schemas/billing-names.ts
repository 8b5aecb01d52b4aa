// Schemas of billing.names.list: the names behind ids, so a screen shows "Acme Repairs Ltd", never a UUID where a name exists.
import { z } from 'zod';
import { Uuid } from './common.ts';

const Ids = (what: string) => z.array(Uuid).max(200).optional().describe(`Ids of ${what} (at most 200).`);

/** billing.NamesListRequest */
export const NamesListRequest = z
  .strictObject({
    customers: Ids('customers'),
    organizations: Ids('organizations'),
    users: Ids('users and staff members'),
    subscriptions: Ids('subscriptions'),
    products: Ids('products'),
  })
  .meta({ id: 'billing.NamesListRequest' });

/** billing.NamesListResponse: one entry per id that exists; an unknown id is simply absent. */
export const NamesListResponse = z
  .object({
    customers: z.array(z.object({
      id: Uuid,
      name: z.string(),
      email: z.string(),
      status: z.enum(['active', 'removed']),
      suspended: z.boolean().describe('Access suspended for non-payment now.'),
      organization_id: Uuid,
      organization_name: z.string().nullable(),
    })),
    organizations: z.array(z.object({ id: Uuid, name: z.string(), customer_id: Uuid.nullable().describe('Its billing customer, if it has one.') })),
    users: z.array(z.object({ id: Uuid, name: z.string(), email: z.string() })),
    subscriptions: z.array(z.object({ id: Uuid, status: z.string(), organization_id: Uuid, organization_name: z.string().nullable(), customer_id: Uuid.nullable() })),
    products: z.array(z.object({ id: Uuid, name: z.string() })),
  })
  .meta({ id: 'billing.NamesListResponse' });
