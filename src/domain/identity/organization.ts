// Organization aggregate: name, kind, members and their roles, repairer sites.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { identityErrors } from './errors.ts';

/** What kind of business an organization is. */
export const OrganizationKind = z.enum(['repairer', 'supplier', 'platform']);
/** A member's role in an organization. */
export const MembershipRole = z.enum(['owner', 'admin', 'member']);

/** Events of an organization stream (`organization-<id>`). */
export const OrganizationEvents = eventSchemas({
  OrganizationCreated: z.object({ organization_id: z.uuid(), name: z.string(), kind: OrganizationKind, created_at: z.string() }),
  MemberAdded: z.object({ user_id: z.uuid(), role: MembershipRole }),
  MemberRoleChanged: z.object({ user_id: z.uuid(), role: MembershipRole }),
  SiteAdded: z.object({ site_id: z.uuid(), name: z.string() }),
});

/** An organization event (derived from `OrganizationEvents`). */
export type OrganizationEvent = EventOf<typeof OrganizationEvents>;

/** How organization events are read. */
export const organizationCodec = eventCodec(OrganizationEvents);

/** What may be asked of an organization. */
export type OrganizationCommand =
  | { type: 'CreateOrganization'; data: { organization_id: string; name: string; kind: z.infer<typeof OrganizationKind>; now: string } }
  | { type: 'AddMember'; data: { user_id: string; role: z.infer<typeof MembershipRole> } }
  | { type: 'AddSite'; data: { site_id: string; name: string } };

/** What the organization decider needs. */
export interface OrganizationState {
  exists: boolean;
  members: Record<string, z.infer<typeof MembershipRole>>;
  sites: Record<string, string>;
}

/** Pure organization decider. */
export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  events: organizationCodec,
  initialState: () => ({ exists: false, members: {}, sites: {} }),
  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationCreated':
        return { ...state, exists: true };
      case 'MemberAdded':
      case 'MemberRoleChanged':
        return { ...state, members: { ...state.members, [event.data.user_id]: event.data.role } };
      case 'SiteAdded':
        return { ...state, sites: { ...state.sites, [event.data.site_id]: event.data.name } };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateOrganization':
        if (state.exists) throw identityErrors.error('organization_exists', 'The organization already exists.');
        return [{ type: 'OrganizationCreated', data: { organization_id: command.data.organization_id, name: command.data.name, kind: command.data.kind, created_at: command.data.now } }];
      case 'AddMember': {
        if (!state.exists) throw identityErrors.error('organization_not_found', 'No such organization.');
        const current = state.members[command.data.user_id];
        if (current === command.data.role) return [];
        return [{ type: current ? 'MemberRoleChanged' : 'MemberAdded', data: { user_id: command.data.user_id, role: command.data.role } }];
      }
      case 'AddSite':
        if (!state.exists) throw identityErrors.error('organization_not_found', 'No such organization.');
        return [{ type: 'SiteAdded', data: { site_id: command.data.site_id, name: command.data.name } }];
      default:
        return assertNever(command);
    }
  },
};
