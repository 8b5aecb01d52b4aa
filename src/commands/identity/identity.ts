// Identity writes used by the admin CLI, the demo seed and the pages: organizations, users, sites, sessions.
import type { Knex } from 'knex';
import type { OrganizationState } from '../../domain/identity/organization.ts';
import { hashSecret, newSecret } from '../../secrets.ts';
import { setPassword } from './credentials.ts';
import type { CommandContext } from '../../context.ts';
import { organizations, users } from './handlers.ts';
import { type ClaimContext, claimEmail } from './email-claim-streams.ts';
import { normalizeEmail } from '../../queries/identity/identity.ts';
import type { LogPosition } from '../../eventstore/port.ts';
import { identityErrors } from '../../domain/identity/errors.ts';
import { forgetSessions } from '../../queries/identity/session-cache.ts';

export type OrganizationKind = 'repairer' | 'supplier' | 'platform';
export type Role = 'owner' | 'admin' | 'member';

/** Creates an organization; returns its id and the log position to wait for. */
export async function createOrganization(ctx: CommandContext, input: { name: string; kind: OrganizationKind }): Promise<{ id: string; position: LogPosition | null }> {
  const name = input.name.trim();
  if (!name) throw identityErrors.error('invalid_name', 'An organization needs a name.');
  const id = ctx.ids.next();
  const res = await organizations.run(ctx, id, { type: 'CreateOrganization', data: { organization_id: id, name, kind: input.kind } }, { orgId: id });
  return { id, position: res.position };
}

/** Registers a user with a unique email, optionally as a member of an organization and with a platform role. */
export async function createUser(
  ctx: ClaimContext & { knex: Knex },
  input: { email: string; password: string; name?: string; organizationId?: string; role?: Role; staff?: ('billing_staff' | 'platform_staff')[] },
): Promise<{ id: string; position: LogPosition | null }> {
  const email = normalizeEmail(input.email);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw identityErrors.error('invalid_email', `Not an email address: ${input.email}`);
  if (input.password.length < 8) throw identityErrors.error('weak_password', 'A password needs at least 8 characters.');
  if (input.organizationId) await requireOrganization(ctx, input.organizationId);
  const id = ctx.ids.next();
  await claimEmail(ctx, email, id);
  // The credential first: a user whose registration is in the log can always sign in (a retry rewrites it).
  await setPassword(ctx.knex, id, input.password, ctx.now);
  let res = await users.run(ctx, id, { type: 'RegisterUser', data: { user_id: id, email, name: input.name?.trim() || email } }, { orgId: null });
  for (const role of input.staff ?? []) res = await users.run(ctx, id, { type: 'GrantPlatformRole', data: { role } }, { orgId: null });
  let position = res.position;
  if (input.organizationId) {
    const m = await organizations.run(ctx, input.organizationId, { type: 'AddMember', data: { user_id: id, role: input.role ?? 'member' } }, { orgId: input.organizationId });
    position = m.position ?? position;
  }
  return { id, position };
}

/** Adds a user to an organization (or changes the role). */
export async function addMember(ctx: CommandContext, organizationId: string, userId: string, role: Role): Promise<LogPosition | null> {
  const res = await organizations.run(ctx, organizationId, { type: 'AddMember', data: { user_id: userId, role } }, { orgId: organizationId });
  return res.position;
}

/** Adds a repairer site to an organization. */
export async function addSite(ctx: CommandContext, organizationId: string, name: string): Promise<{ id: string; position: LogPosition | null }> {
  const id = ctx.ids.next();
  const res = await organizations.run(ctx, organizationId, { type: 'AddSite', data: { site_id: id, name: name.trim() } }, { orgId: organizationId });
  return { id, position: res.position };
}

async function requireOrganization(ctx: CommandContext, id: string): Promise<OrganizationState> {
  const state = await organizations.load(ctx, id);
  if (!state.exists) throw identityErrors.error('organization_not_found', `No organization ${id}.`);
  return state;
}

/** Opens a session of a user in an organization; returns the token (shown once; stored as a hash). */
export async function createSession(knex: Knex, input: { userId: string; organizationId: string; now: Date; ttlHours: number }): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecret('svc_sess_');
  const expiresAt = new Date(input.now.getTime() + input.ttlHours * 3_600_000);
  await knex('sessions').insert({ token_hash: hashSecret(token), user_id: input.userId, organization_id: input.organizationId, created_at: input.now, expires_at: expiresAt });
  return { token, expiresAt };
}

/** Revokes a session at once. */
export async function revokeSession(knex: Knex, tokenHash: string, now: Date): Promise<void> {
  await knex('sessions').where({ token_hash: tokenHash }).whereNull('revoked_at').update({ revoked_at: now });
  forgetSessions();
}
