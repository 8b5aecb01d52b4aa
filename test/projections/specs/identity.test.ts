// Identity read models, given identity events: the users, organizations (with sites) and memberships sign-in and the admin pages read.
import { backends } from '../../support/db.ts';
import type { OrganizationEvent } from '../../../src/domain/identity/organization.ts';
import type { UserEvent } from '../../../src/domain/identity/user.ts';
import { identityProjection } from '../../../src/projections/identity/identity.ts';
import { on, projectionSpec } from '../spec.ts';

const USER = '0190c6a2-0000-7000-8000-0000000000f1';
const ORG = '0190c6a2-0000-7000-8000-0000000000a1';
const SITE = '0190c6a2-0000-7000-8000-0000000000e1';
const AT = '2026-01-15T09:00:00.000Z';

for (const backend of backends()) {
  describe(`identity projection spec (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('a registered user with a role and a password set, an organization with a site and the user promoted to owner', async () => {
      await spec.given(identityProjection, [
        ...on<UserEvent>(`user-${USER}`, [
          { type: 'UserRegistered', data: { user_id: USER, email: 'ann@example.com', name: 'Ann', registered_at: AT } },
          { type: 'PlatformRoleGranted', data: { role: 'billing_staff' } },
          { type: 'PasswordSet', data: { set_at: AT } },
        ]),
        ...on<OrganizationEvent>(`organization-${ORG}`, [
          { type: 'OrganizationCreated', data: { organization_id: ORG, name: 'Acme', kind: 'repairer', created_at: AT } },
          { type: 'MemberAdded', data: { user_id: USER, role: 'member' } },
          { type: 'MemberRoleChanged', data: { user_id: USER, role: 'owner' } },
          { type: 'SiteAdded', data: { site_id: SITE, name: 'Leeds' } },
        ]),
      ]).then({
        identity_users: [{ id: USER, email: 'ann@example.com', name: 'Ann', platform_roles: ['billing_staff'], registered_at: AT }],
        identity_organizations: [{ id: ORG, name: 'Acme', kind: 'repairer', created_at: AT, sites: [{ id: SITE, name: 'Leeds' }] }],
        identity_memberships: [{ organization_id: ORG, user_id: USER, role: 'owner' }],
      });
    });
  });
}
