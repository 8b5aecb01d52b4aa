// Checks an operation's access rule against the caller.
import { commonErrors, forbidden } from '../domain/errors.ts';
import { type Auth, hasRole } from '../context.ts';
import type { Access } from '../contract/operation.ts';

/** Throws 401/403 unless `auth` satisfies `access`. */
export function checkAccess(access: Access, auth: Auth): void {
  if (access === 'public') return;
  // Only this process calls as the system; no system caller calls an operation of people or apps (it names no user).
  if (access === 'system') {
    if (auth.kind !== 'system') throw forbidden('Only the service itself calls this operation.');
    return;
  }
  if (typeof access === 'object') {
    if (auth.kind !== 'integration') throw commonErrors.error('unauthenticated', 'This operation needs an integration API key.');
    if (access.integration !== 'any' && !access.integration.some((s) => auth.scopes.includes(s)))
      throw forbidden(`The API key lacks the scope this operation needs (${access.integration.join(' or ')}).`);
    return;
  }
  if (auth.kind !== 'session') throw commonErrors.error('unauthenticated', 'A valid session token is required: authorization: Bearer svc_sess_...');
  switch (access) {
    case 'org_user':
      return;
    case 'org_admin':
      if (auth.membershipRole === 'owner' || auth.membershipRole === 'admin' || hasRole(auth, 'billing_staff')) return;
      throw forbidden('Only owners and admins of the organization may do this.');
    case 'billing_staff':
      if (hasRole(auth, 'billing_staff')) return;
      throw forbidden('Only billing staff may do this.');
    case 'platform_staff':
      if (hasRole(auth, 'platform_staff')) return;
      throw forbidden('Only platform staff may do this.');
  }
}
