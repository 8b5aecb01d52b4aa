// Integration aggregates bound to their streams once.
import { clientDecider } from '../../domain/integrations/client.ts';
import { integrationDecider } from '../../domain/integrations/integration.ts';
import { commandHandler } from '../run.ts';

/** `integrationclient-<id>`: a registered third-party app and its secrets. */
export const integrationClients = commandHandler(clientDecider, (id) => `integrationclient-${id}`);
/** `integration-<id>`: one installation of an app into an organization. */
export const installations = commandHandler(integrationDecider, (id) => `integration-${id}`);
