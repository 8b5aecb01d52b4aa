// Schemas of the Authentication operations.
import { z } from 'zod';
import { Timestamp, Uuid } from './common.ts';

export const SessionCreateRequest = z
  .strictObject({
    email: z.string().min(3).max(320).describe('The user\'s email address.'),
    password: z.string().min(1).max(1000).describe('The user\'s password.'),
    organization_id: Uuid.optional().describe('Organization to sign into; the user\'s first organization by name when omitted.'),
  })
  .meta({ id: 'auth.SessionCreateRequest' });

export const SessionCreateResponse = z
  .object({
    token: z.string().describe('Bearer token `svc_sess_...`; shown once.'),
    expires_at: Timestamp,
    organization_id: Uuid.describe('The organization this session acts in.'),
  })
  .meta({ id: 'auth.SessionCreateResponse' });

export const SessionDetail = z
  .object({
    user: z.object({ id: Uuid, email: z.string(), name: z.string() }).describe('The signed-in user.'),
    organization: z.object({ id: Uuid, name: z.string(), kind: z.enum(['repairer', 'supplier', 'platform']) }).describe('The organization the session acts in.'),
    membership_role: z.enum(['owner', 'admin', 'member']).nullable().describe('The user\'s role in that organization.'),
    roles: z.array(z.enum(['billing_staff', 'platform_staff'])).describe('Platform roles of the user.'),
    expires_at: Timestamp,
  })
  .meta({ id: 'auth.SessionDetail' });

/** auth.sessions.switch (internal): a new session of the signed-in user in another of their organizations (the page's switcher). */
export const SessionSwitchRequest = z.strictObject({ organization_id: Uuid });

/** auth.organizations.list (internal): the signed-in user's organizations, by name. */
export const OrganizationChoices = z.array(
  z.object({ id: Uuid, name: z.string(), kind: z.string(), role: z.string().describe('The user\'s membership role there.') }),
);

// Operator operations (internal, access system): the CLI's `admin` commands and the demo seed invoke them as the system (job `cli`).
const Text = z.string().max(1000);

/** identity.organizations.insert (internal). */
export const OrganizationInsertRequest = z.strictObject({ name: Text, kind: z.enum(['repairer', 'supplier', 'platform']) });
/** identity.sites.insert (internal). */
export const SiteInsertRequest = z.strictObject({ organization_id: Text, name: Text });
/** identity.users.insert (internal): a new user, or an existing one (same email) added to `organization_id`. */
export const UserInsertRequest = z.strictObject({
  email: Text,
  password: Text,
  name: Text.nullable(),
  organization_id: Text.nullable(),
  role: z.enum(['owner', 'admin', 'member']),
  staff: z.array(z.enum(['billing_staff', 'platform_staff'])).max(2),
});
/** The id of what an operator operation made. */
export const Created = z.object({ id: z.string() });
/** auth.sessions.issue (internal): a session token of a member, for an operator. */
export const SessionIssueRequest = z.strictObject({ user_id: Uuid, organization_id: Uuid });
