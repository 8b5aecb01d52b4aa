// Identity deciders: organization, user, email claim.
import { organizationDecider, type OrganizationEvent } from '../../src/domain/identity/organization.ts';
import { type EmailClaimEvent, emailClaimDecider, userDecider, type UserEvent } from '../../src/domain/identity/user.ts';
import { given } from './given.ts';

const ORG = '0190c6a2-0000-7000-8000-0000000000a1';
const USER = '0190c6a2-0000-7000-8000-0000000000b1';
const NOW = '2026-01-15T09:00:00.000Z';
const created: OrganizationEvent = { type: 'OrganizationCreated', data: { organization_id: ORG, name: 'Acme', kind: 'repairer', created_at: NOW } };
const registered: UserEvent = { type: 'UserRegistered', data: { user_id: USER, email: 'a@example.com', name: 'A', registered_at: NOW } };
const passwordSet: UserEvent = { type: 'PasswordSet', data: { set_at: NOW } };

describe('organization decider', () => {
  it('creates an organization once', () => {
    given(organizationDecider, []).when({ type: 'CreateOrganization', data: { organization_id: ORG, name: 'Acme', kind: 'repairer', now: NOW } }).then([created]);
    given(organizationDecider, [created]).when({ type: 'CreateOrganization', data: { organization_id: ORG, name: 'Acme', kind: 'repairer', now: NOW } }).thenError('organization_exists');
  });

  it('adds a member, changes a role, and ignores a repeat', () => {
    given(organizationDecider, [created]).when({ type: 'AddMember', data: { user_id: USER, role: 'member' } }).then([{ type: 'MemberAdded', data: { user_id: USER, role: 'member' } }]);
    const added: OrganizationEvent = { type: 'MemberAdded', data: { user_id: USER, role: 'member' } };
    given(organizationDecider, [created, added]).when({ type: 'AddMember', data: { user_id: USER, role: 'owner' } }).then([{ type: 'MemberRoleChanged', data: { user_id: USER, role: 'owner' } }]);
    given(organizationDecider, [created, added]).when({ type: 'AddMember', data: { user_id: USER, role: 'member' } }).thenNothing();
  });

  it('adds sites; members and sites need an existing organization', () => {
    given(organizationDecider, [created]).when({ type: 'AddSite', data: { site_id: USER, name: 'Main' } }).then([{ type: 'SiteAdded', data: { site_id: USER, name: 'Main' } }]);
    given(organizationDecider, []).when({ type: 'AddSite', data: { site_id: USER, name: 'Main' } }).thenError('organization_not_found');
    given(organizationDecider, []).when({ type: 'AddMember', data: { user_id: USER, role: 'owner' } }).thenError('organization_not_found');
  });
});

describe('user decider', () => {
  it('registers a user once; the events say a password was set, never what it is', () => {
    given(userDecider, []).when({ type: 'RegisterUser', data: { user_id: USER, email: 'a@example.com', name: 'A', now: NOW } }).then([registered, passwordSet]);
    given(userDecider, [registered]).when({ type: 'RegisterUser', data: { user_id: USER, email: 'a@example.com', name: 'A', now: NOW } }).thenError('user_exists');
  });

  it('grants a platform role once; a missing user is not found', () => {
    given(userDecider, [registered]).when({ type: 'GrantPlatformRole', data: { role: 'billing_staff' } }).then([{ type: 'PlatformRoleGranted', data: { role: 'billing_staff' } }]);
    given(userDecider, [registered, { type: 'PlatformRoleGranted', data: { role: 'billing_staff' } }]).when({ type: 'GrantPlatformRole', data: { role: 'billing_staff' } }).thenNothing();
    given(userDecider, [registered, { type: 'PlatformRoleGranted', data: { role: 'billing_staff' } }]).when({ type: 'GrantPlatformRole', data: { role: 'platform_staff' } }).then([{ type: 'PlatformRoleGranted', data: { role: 'platform_staff' } }]);
    given(userDecider, []).when({ type: 'GrantPlatformRole', data: { role: 'billing_staff' } }).thenError('user_not_found');
  });
});

describe('email claim decider', () => {
  const claim = { email: 'a@example.com', user_id: USER };
  const claimed: EmailClaimEvent = { type: 'EmailClaimed', data: claim };
  it('the first claim wins; the same user claiming again is a no-op; another user is refused', () => {
    given(emailClaimDecider, []).when({ type: 'ClaimEmail', data: claim }).then([{ type: 'EmailClaimed', data: claim }]);
    given(emailClaimDecider, [claimed]).when({ type: 'ClaimEmail', data: claim }).thenNothing();
    given(emailClaimDecider, [claimed]).when({ type: 'ClaimEmail', data: { ...claim, user_id: ORG } }).thenError('email_taken');
  });
  it('the holder\'s claim is released once (its user was erased); the email can then be claimed by another user', () => {
    const released: EmailClaimEvent = { type: 'EmailClaimReleased', data: { user_id: USER } };
    given(emailClaimDecider, [claimed]).when({ type: 'ReleaseEmail', data: { user_id: USER } }).then([released]);
    given(emailClaimDecider, [claimed, released]).when({ type: 'ReleaseEmail', data: { user_id: USER } }).thenNothing();
    given(emailClaimDecider, [claimed]).when({ type: 'ReleaseEmail', data: { user_id: ORG } }).thenNothing();
    given(emailClaimDecider, [claimed, released]).when({ type: 'ClaimEmail', data: { ...claim, user_id: ORG } }).then([{ type: 'EmailClaimed', data: { ...claim, user_id: ORG } }]);
  });
});
