// Every operation declaration with its types, by spec id. The console calls `p.api.call(ops['billing.invoices.get'], id)`
// and the tests `svc.call(ops['billing.invoices.get'], id, token)`: an id that names no operation, a request body that
// breaks the schema, or a read of a field the response lacks fails the type-check.
import { billingOperations } from './billing.ts';
import { identityOperations } from './identity.ts';
import { integrationsOperations } from './integrations.ts';
import { jobsOperations } from './jobs.ts';
import { billingConfigurationOperations } from './billing-configuration.ts';
import { assembliesOperations } from './assemblies.ts';
import { ingestOperations } from './ingest.ts';
import { analyticsOperations } from './analytics.ts';
import { platformOperations } from './platform.ts';
import { billingWebhookOperations } from './billing-webhooks.ts';

const all = [...identityOperations, ...integrationsOperations, ...jobsOperations, ...billingOperations, ...billingConfigurationOperations, ...assembliesOperations, ...ingestOperations, ...analyticsOperations, ...platformOperations, ...billingWebhookOperations];

/** Any typed operation of the service. */
export type AnyOperation = (typeof all)[number];
/** A spec operation id. */
export type OperationId = AnyOperation['id'];

/** The typed operations by id (the same objects the registry holds). */
// Object.fromEntries cannot say that each key maps to its own declaration; the map is built from the ids themselves.
export const ops = Object.fromEntries(all.map((op) => [op.id, op])) as { [K in OperationId]: Extract<AnyOperation, { id: K }> };
