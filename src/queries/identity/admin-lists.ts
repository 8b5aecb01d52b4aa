// Operator reads of identity (internal, access system): `admin org list` and `admin user list`. Never routed over HTTP.
import { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { identityErrors } from '../../domain/identity/errors.ts';
import { identityProjection } from '../../projections/identity/identity.ts';
import { allOrganizations, usersWithMemberships } from './identity.ts';

const OrganizationRow = z.object({ id: z.string(), name: z.string(), kind: z.string(), created_at: z.string(), sites: z.number().int() });
const UserRow = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  platform_roles: z.array(z.string()),
  memberships: z.array(z.object({ organization_id: z.string(), role: z.string() })),
});
const ListRequest = z.object({ organization_id: z.string().uuid().nullish() }).strict().nullish();

/** identity.organizations.list */
export const organizationsList = operation({
  id: 'identity.organizations.list',
  surface: 'internal',
  tags: ['Authentication'],
  summary: 'Every organization, oldest first (operators: `admin org list`).',
  request: null,
  response: z.object({ items: z.array(OrganizationRow) }),
  error: 'identity.OrganizationListError',
  errors: identityErrors.list(),
  access: 'system',
  readModels: [identityProjection],
  async handle(ctx) {
    const items = (await allOrganizations(ctx.services.knex)).map((o) => ({ id: o.id, name: o.name, kind: o.kind, created_at: o.created_at, sites: o.sites.length }));
    return { items: items.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)) };
  },
});

/** identity.users.list */
export const usersList = operation({
  id: 'identity.users.list',
  surface: 'internal',
  tags: ['Authentication'],
  summary: 'Every user (of one organization when named), with platform roles and memberships, by email (operators: `admin user list`).',
  request: ListRequest,
  response: z.object({ items: z.array(UserRow) }),
  error: 'identity.UserListError',
  errors: identityErrors.list(),
  access: 'system',
  readModels: [identityProjection],
  async handle(ctx, req) {
    const rows = await usersWithMemberships(ctx.services.knex, req?.organization_id ?? null);
    return { items: rows.map(({ user, memberships }) => ({ ...user, memberships: memberships.map((m) => ({ organization_id: m.organization_id, role: m.role })) })) };
  },
});
