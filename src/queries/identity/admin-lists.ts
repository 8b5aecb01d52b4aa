// Operator reads of identity (internal, access system): `admin org list` and `admin user list`. Never routed over HTTP.
import { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { identityErrors } from '../../domain/identity/errors.ts';
import { identityProjection } from '../../projections/identity/identity.ts';
import type { MembershipDoc, OrganizationDoc, UserDoc } from '../../projections/identity/identity.ts';

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
    const rows = (await ctx.services.knex('identity_organizations').select('doc')) as { doc: OrganizationDoc }[];
    const items = rows.map((r) => ({ id: r.doc.id, name: r.doc.name, kind: r.doc.kind, created_at: r.doc.created_at, sites: r.doc.sites.length }));
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
    const knex = ctx.services.knex;
    const orgId = req?.organization_id ?? null;
    const memberships = (await knex('identity_memberships').modify((q) => void (orgId ? q.where({ organization_id: orgId }) : q)).select('doc')) as { doc: MembershipDoc }[];
    const byUser = new Map<string, { organization_id: string; role: string }[]>();
    for (const { doc } of memberships) byUser.set(doc.user_id, [...(byUser.get(doc.user_id) ?? []), { organization_id: doc.organization_id, role: doc.role }]);
    const users = (await knex('identity_users').modify((q) => void (orgId ? q.whereIn('id', [...byUser.keys()]) : q)).orderBy('email').select('doc')) as { doc: UserDoc }[];
    return { items: users.map(({ doc }) => ({ id: doc.id, email: doc.email, name: doc.name, platform_roles: doc.platform_roles, memberships: byUser.get(doc.id) ?? [] })) };
  },
});
