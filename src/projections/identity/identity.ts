// Identity read models: users, organizations (with sites) and memberships. Read by queries/identity/identity.ts.
import { type OrganizationEvent, organizationCodec } from '../../domain/identity/organization.ts';
import { type UserEvent, userCodec } from '../../domain/identity/user.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { streamKey } from '../recorded.ts';
import { ERASED } from '../../domain/personal.ts';

/** identity_users.doc */
export interface UserDoc {
  id: string;
  email: string;
  name: string;
  platform_roles: string[];
  registered_at: string;
}

/** identity_organizations.doc */
export interface OrganizationDoc {
  id: string;
  name: string;
  kind: string;
  created_at: string;
  sites: { id: string; name: string }[];
}

/** identity_memberships.doc */
export interface MembershipDoc {
  organization_id: string;
  user_id: string;
  role: string;
}

/** Builds identity_users, identity_organizations and identity_memberships. */
export const identityProjection = documentProjection({
  name: 'identity',
  // 2: password hashes left the read model (and the events); rebuilding drops them from old docs.
  version: 2,
  tables: [
    documentTable<UserDoc, UserEvent>({
      table: 'identity_users',
      events: userCodec,
      // The email column is unique: erased users all read "[erased]", so theirs is made unique by the id (no address is in it).
      columns: (d, id) => ({ email: d.email === ERASED ? `${ERASED}:${id}` : d.email }),
      handlers: {
        UserRegistered: (_doc, d) => ({ id: d.user_id, email: d.email, name: d.name, platform_roles: [], registered_at: d.registered_at }),
        PlatformRoleGranted: (doc, d) => doc && { ...doc, platform_roles: [...doc.platform_roles, d.role] },
        // Issue 32: the live row loses the values at once (a rebuild reads them as "[erased]" from the log already).
        UserErased: (doc) => doc && { ...doc, email: ERASED, name: ERASED },
      },
    }),
    documentTable<OrganizationDoc, OrganizationEvent>({
      table: 'identity_organizations',
      events: organizationCodec,
      columns: (d) => ({ name: d.name, kind: d.kind }),
      handlers: {
        OrganizationCreated: (_doc, d) => ({ id: d.organization_id, name: d.name, kind: d.kind, created_at: d.created_at, sites: [] }),
        SiteAdded: (doc, d) => doc && { ...doc, sites: [...doc.sites, { id: d.site_id, name: d.name }] },
      },
    }),
    documentTable<MembershipDoc, OrganizationEvent>({
      table: 'identity_memberships',
      events: organizationCodec,
      keyOf: (e, read) => (read.type === 'MemberAdded' || read.type === 'MemberRoleChanged' ? `${streamKey(e)}:${read.data.user_id}` : null),
      columns: (d) => ({ organization_id: d.organization_id, user_id: d.user_id, role: d.role }),
      handlers: {
        MemberAdded: (_doc, d, e) => ({ organization_id: streamKey(e), user_id: d.user_id, role: d.role }),
        MemberRoleChanged: (doc, d) => doc && { ...doc, role: d.role },
      },
    }),
  ],
});
