// Reads of the identity read models (written by projections/identity/identity.ts) and the sessions table.
import type { Knex } from 'knex';
import type { MembershipDoc, OrganizationDoc, UserDoc } from '../../projections/identity/identity.ts';

/** The projection these queries read, for read-your-writes waits. */
export const IDENTITY = 'identity';

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

/** Memberships of a user, oldest organization first. */
export async function membershipsOf(knex: Knex, userId: string): Promise<MembershipDoc[]> {
  const rows = await knex('identity_memberships').where({ user_id: userId }).orderBy('organization_id').select('doc');
  return rows.map((r: { doc: MembershipDoc }) => r.doc);
}

export async function membership(knex: Knex, organizationId: string, userId: string): Promise<MembershipDoc | null> {
  const row = await knex('identity_memberships').where({ id: `${organizationId}:${userId}` }).first('doc');
  return row ? (row.doc as MembershipDoc) : null;
}

/** Emails compare case-insensitively and without surrounding spaces. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
