// The integrations area: installing third-party apps (code exchange, uninstall) and who a key belongs to.
import { integrationOperations } from '../commands/integrations/install.ts';
import { accessCodesInsert } from '../commands/integrations/access-codes.ts';
import { integrationAdminCommands } from '../commands/integrations/admin.ts';
import { integrationsProjection } from '../projections/integrations/integrations.ts';
import { integrationsGet } from '../queries/integrations/current.ts';
import { clientsGet } from '../queries/integrations/client-get.ts';
import type { Area } from './area.ts';

/** Typed integrations operations. */
export const integrationsOperations = [...integrationOperations, integrationsGet, clientsGet, accessCodesInsert, ...integrationAdminCommands];

/** The integrations area as the composition root assembles it. */
export const integrations: Area = { name: 'integrations', operations: integrationsOperations, projections: [integrationsProjection] };
