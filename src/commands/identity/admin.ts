// Operator operations of identity (internal, access system): organizations, sites, users and session tokens, as the CLI's `admin`
// commands and the demo seed invoke them (job `cli`). Never routed over HTTP.
import { operation } from '../../contract/operation.ts';
import { Created, OrganizationInsertRequest, SessionCreateResponse, SessionIssueRequest, SiteInsertRequest, UserInsertRequest } from '../../contract/schemas/identity.ts';
import { identityErrors } from '../../domain/identity/errors.ts';
import { findUserByEmail, membership } from '../../queries/identity/identity.ts';
import { addMember, addSite, createOrganization, createSession, createUser } from './identity.ts';

/** identity.organizations.insert */
export const organizationsInsert = operation({
  id: 'identity.organizations.insert',
  surface: 'internal',
  tags: ['Authentication'],
  summary: 'Creates an organization (operators: `admin org create`, the demo seed).',
  request: OrganizationInsertRequest,
  response: Created,
  error: 'identity.OrganizationInsertError',
  errors: identityErrors.list('invalid_name'),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    return { id: (await createOrganization(ctx, req)).id };
  },
});

/** identity.sites.insert */
export const sitesInsert = operation({
  id: 'identity.sites.insert',
  surface: 'internal',
  tags: ['Authentication'],
  summary: "Adds a site to a repairer organization (operators: `admin site create`, the demo seed).",
  request: SiteInsertRequest,
  response: Created,
  error: 'identity.SiteInsertError',
  errors: identityErrors.list('organization_not_found'),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    return { id: (await addSite(ctx, req.organization_id, req.name)).id };
  },
});

/** identity.users.insert */
export const usersInsert = operation({
  id: 'identity.users.insert',
  surface: 'internal',
  tags: ['Authentication'],
  summary: 'Registers a user (with a platform role, in an organization), or adds an existing one to an organization (operators: `admin user create`, the demo seed).',
  request: UserInsertRequest,
  response: Created,
  error: 'identity.UserInsertError',
  errors: identityErrors.list('invalid_email', 'weak_password', 'email_taken', 'organization_not_found'),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const knex = ctx.services.knex;
    const existing = await findUserByEmail(knex, req.email);
    if (!existing || !req.organization_id) {
      const res = await createUser({ ...ctx, knex, keys: ctx.services.personalData.keys }, {
        email: req.email, password: req.password, name: req.name ?? undefined, organizationId: req.organization_id ?? undefined, role: req.role, staff: req.staff,
      });
      return { id: res.id };
    }
    // An existing user (same email) named with an organization joins it.
    await addMember(ctx, req.organization_id, existing.id, req.role);
    return { id: existing.id };
  },
});

/** auth.sessions.issue */
export const sessionsIssue = operation({
  id: 'auth.sessions.issue',
  surface: 'internal',
  tags: ['Authentication'],
  summary: 'Opens a session of a member in one of their organizations, without a password (operators: `admin token create`, the demo seed).',
  request: SessionIssueRequest,
  response: SessionCreateResponse,
  error: 'auth.SessionIssueError',
  errors: identityErrors.list('not_a_member'),
  access: 'system',
  async handle(ctx, req) {
    const { knex, config } = ctx.services;
    if (!(await membership(knex, req.organization_id, req.user_id))) throw ctx.errors.error('not_a_member', 'The user is not a member of that organization.');
    const s = await createSession(knex, { userId: req.user_id, organizationId: req.organization_id, now: ctx.now, ttlHours: config.sessionTtlHours });
    return { token: s.token, expires_at: s.expiresAt.toISOString(), organization_id: req.organization_id };
  },
});

/** Identity's operator operations. */
export const identityAdminCommands = [organizationsInsert, sitesInsert, usersInsert, sessionsIssue];
