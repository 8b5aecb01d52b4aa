// Reads of the identity read models (written by projections/identity/identity.ts) and the sessions table.
import type { Knex } from 'knex';
import type { Auth, MembershipRole, PlatformRole } from '../../context.ts';
import type { MembershipDoc, OrganizationDoc, UserDoc } from '../../projections/identity/identity.ts';
import { hashSecret, looksValid } from '../../secrets.ts';
import { ERASED } from '../../domain/personal.ts';

/** What an erased user is called where it acted (history, the feed, the console's names): its id stays, its name went (issue 32). */
export const ERASED_USER = 'erased user';

/** How a user is shown as the actor of what it did: its name and email, or "erased user" and no email once erased. */
export function shownUser(user: UserDoc): { name: string; email: string | null } {
  return user.email === ERASED ? { name: ERASED_USER, email: null } : { name: user.name, email: user.email };
}

export async function findUserByEmail(knex: Knex, email: string): Promise<UserDoc | null> {
  const row = await knex('identity_users').where({ email: normalizeEmail(email) }).first('doc');
  return row ? (row.doc as UserDoc) : null;
}

export async function getUser(knex: Knex, id: string): Promise<UserDoc | null> {
  const row = await knex('identity_users').where({ id }).first('doc');
  return row ? (row.doc as UserDoc) : null;
}

export async function getOrganization(knex: Knex, id: string): Promise<OrganizationDoc | null> {
  const row = await knex('identity_organizations').where({ id }).first('doc');
  return row ? (row.doc as OrganizationDoc) : null;
}

export async function findOrganizationByName(knex: Knex, name: string): Promise<OrganizationDoc | null> {
  const row = await knex('identity_organizations').where({ name }).orderBy('id').first('doc');
  return row ? (row.doc as OrganizationDoc) : null;
}

/** The organizations a user belongs to, with their role, by name (then id): sign-in's default and the switcher's order. */
export async function organizationsOfUser(knex: Knex, userId: string): Promise<{ id: string; name: string; kind: OrganizationDoc['kind']; role: MembershipDoc['role'] }[]> {
  const rows = (await knex('identity_memberships as m')
    .join('identity_organizations as o', 'o.id', 'm.organization_id')
    .where('m.user_id', userId)
    .select('m.doc as membership', 'o.doc as organization')) as { membership: MembershipDoc; organization: OrganizationDoc }[];
  return rows
    .map((r) => ({ id: r.organization.id, name: r.organization.name, kind: r.organization.kind, role: r.membership.role }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

export async function membership(knex: Knex, organizationId: string, userId: string): Promise<MembershipDoc | null> {
  const row = await knex('identity_memberships').where({ id: `${organizationId}:${userId}` }).first('doc');
  return row ? (row.doc as MembershipDoc) : null;
}

/** Every organization (`admin org list`). */
export async function allOrganizations(knex: Knex): Promise<OrganizationDoc[]> {
  const rows = (await knex('identity_organizations').select('doc')) as { doc: OrganizationDoc }[];
  return rows.map((r) => r.doc);
}

/** Every user by email, or the members of one organization (`admin user list`), with their memberships (of that organization). */
export async function usersWithMemberships(knex: Knex, organizationId: string | null): Promise<{ user: UserDoc; memberships: MembershipDoc[] }[]> {
  const memberships = (await knex('identity_memberships').modify((q) => void (organizationId ? q.where({ organization_id: organizationId }) : q)).select('doc')) as { doc: MembershipDoc }[];
  const byUser = new Map<string, MembershipDoc[]>();
  for (const { doc } of memberships) byUser.set(doc.user_id, [...(byUser.get(doc.user_id) ?? []), doc]);
  const users = (await knex('identity_users').modify((q) => void (organizationId ? q.whereIn('id', [...byUser.keys()]) : q)).orderBy('email').select('doc')) as { doc: UserDoc }[];
  return users.map(({ doc }) => ({ user: doc, memberships: byUser.get(doc.id) ?? [] }));
}

/** Emails compare case-insensitively and without surrounding spaces. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Looks up a session token; null when unknown, expired or revoked. */
export async function sessionAuth(knex: Knex, token: string, now: Date): Promise<Auth | null> {
  if (!looksValid(token, 'svc_sess_')) return null;
  const tokenHash = hashSecret(token);
  const row = (await knex('sessions as s')
    .join('identity_users as u', 'u.id', 's.user_id')
    .leftJoin('identity_memberships as m', 'm.id', knex.raw(`s.organization_id::text || ':' || s.user_id::text`))
    .where('s.token_hash', tokenHash)
    .whereNull('s.revoked_at')
    .where('s.expires_at', '>', now)
    .first('s.user_id', 's.organization_id', 's.expires_at', 'u.doc as user', 'm.doc as membership')) as
    | { user_id: string; organization_id: string; expires_at: Date; user: UserDoc; membership: MembershipDoc | null }
    | undefined;
  if (!row) return null;
  return {
    kind: 'session',
    tokenHash,
    userId: row.user_id,
    email: row.user.email,
    name: row.user.name,
    organizationId: row.organization_id,
    membershipRole: (row.membership?.role as MembershipRole | undefined) ?? null,
    platformRoles: row.user.platform_roles as PlatformRole[],
    expiresAt: new Date(row.expires_at),
  };
}

/** Organizations whose name starts with `text` (case-insensitive; indexed by migration 0123), or whose id it is; by name. */
export async function searchOrganizations(knex: Knex, text: string, limit: number): Promise<OrganizationDoc[]> {
  const like = `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const q = knex('identity_organizations').select('doc').orderByRaw('lower(name), id').limit(limit);
  q.where((w) => {
    w.whereRaw('lower(name) like ?', [like]);
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)) w.orWhere('id', text.toLowerCase());
  });
  return ((await q) as { doc: OrganizationDoc }[]).map((r) => r.doc);
}

/** The names of the given organizations that exist, by id. */
export async function organizationsByIds(knex: Knex, ids: string[]): Promise<Map<string, OrganizationDoc>> {
  if (ids.length === 0) return new Map();
  const rows = (await knex('identity_organizations').whereIn('id', ids).select('doc')) as { doc: OrganizationDoc }[];
  return new Map(rows.map((r) => [r.doc.id, r.doc]));
}

/** The given users that exist, by id. */
export async function usersByIds(knex: Knex, ids: string[]): Promise<Map<string, UserDoc>> {
  if (ids.length === 0) return new Map();
  const rows = (await knex('identity_users').whereIn('id', ids).select('doc')) as { doc: UserDoc }[];
  return new Map(rows.map((r) => [r.doc.id, r.doc]));
}
