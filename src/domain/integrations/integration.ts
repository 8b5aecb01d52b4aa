// Installed integration aggregate (`integration-<id>`): an app installed into an organization with scopes and an API key.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { Scope } from './scopes.ts';
import { integrationsErrors } from './errors.ts';

/** Why an integration stopped working. */
export const RemovalReason = z.enum(['uninstalled', 'access_code_replayed']);

/** Events of an installed integration stream. */
export const IntegrationEvents = eventSchemas({
  IntegrationInstalled: z.object({
    integration_id: z.uuid(),
    client_id: z.uuid(),
    organization_id: z.uuid(),
    installed_by: z.uuid(),
    scopes: z.array(Scope),
    api_key_hash: z.string(),
    installed_at: z.string(),
  }),
  IntegrationRemoved: z.object({ integration_id: z.uuid(), reason: RemovalReason, removed_at: z.string() }),
});

/** An event of an installed integration stream (derived from `IntegrationEvents`). */
export type IntegrationEvent = EventOf<typeof IntegrationEvents>;

/** How installed integration events are read. */
export const integrationCodec = eventCodec(IntegrationEvents);

/** A command on an installed integration. */
export type IntegrationCommand =
  | { type: 'InstallIntegration'; data: Omit<z.infer<typeof IntegrationEvents.IntegrationInstalled>, 'installed_at'> & { now: string } }
  | { type: 'RemoveIntegration'; data: { integration_id: string; reason: z.infer<typeof RemovalReason>; now: string } };

/** Lifecycle of an installation. */
export interface IntegrationState {
  status: 'none' | 'active' | 'removed';
}

/** Pure installed-integration decider. */
export const integrationDecider: Decider<IntegrationCommand, IntegrationEvent, IntegrationState> = {
  events: integrationCodec,
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'IntegrationInstalled':
        return { status: 'active' };
      case 'IntegrationRemoved':
        return { status: 'removed' };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'InstallIntegration': {
        // A replayed code can revoke the installation before it is written; it then never becomes active.
        if (state.status !== 'none') throw integrationsErrors.error('invalid_grant', 'The access code was already used.');
        const { now, ...rest } = command.data;
        return [{ type: 'IntegrationInstalled', data: { ...rest, installed_at: now } }];
      }
      case 'RemoveIntegration':
        if (state.status === 'removed') return [];
        if (state.status === 'none' && command.data.reason === 'uninstalled') throw integrationsErrors.error('integration_not_found', 'No such integration.');
        return [{ type: 'IntegrationRemoved', data: { integration_id: command.data.integration_id, reason: command.data.reason, removed_at: command.data.now } }];
      default:
        return assertNever(command);
    }
  },
};
