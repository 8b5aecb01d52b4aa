// The identity area: sign-in sessions over event-sourced organizations, users and memberships.
import { sessionsInsert, sessionsRemove } from '../commands/identity/sessions.ts';
import { sessionsSwitch } from '../commands/identity/session-switch.ts';
import { identityAdminCommands } from '../commands/identity/admin.ts';
import { identityErasureCommands } from '../commands/identity/user-erasure.ts';
import { identityProjection } from '../projections/identity/identity.ts';
import { sessionsGet } from '../queries/identity/sessions.ts';
import { organizationsList as adminOrganizationsList, usersList } from '../queries/identity/admin-lists.ts';
import { idempotencyKeysWorker } from '../workers/identity/idempotency-keys.ts';
import { organizationsList } from '../queries/identity/organizations.ts';
import type { Area } from './area.ts';

/** Typed identity operations. */
export const identityOperations = [sessionsInsert, sessionsGet, sessionsRemove, sessionsSwitch, organizationsList, ...identityAdminCommands, ...identityErasureCommands, adminOrganizationsList, usersList];

/** The identity area as the composition root assembles it; it also runs the purge of expired idempotency keys (the foundation's). */
export const identity: Area = { name: 'identity', operations: identityOperations, projections: [identityProjection], workers: [idempotencyKeysWorker] };
