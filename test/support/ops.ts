// Every operation with its types, by spec id: tests call `svc.call(ops['billing.invoices.get'], id, token)`,
// so a request body that breaks the schema, or a read of a field the response lacks, fails the type-check.
import { billingOperations } from '../../src/areas/billing.ts';
import { identityOperations } from '../../src/areas/identity.ts';
import { integrationsOperations } from '../../src/areas/integrations.ts';
import { jobsOperations } from '../../src/areas/jobs.ts';
import { billingConfigurationOperations } from '../../src/areas/billing-configuration.ts';
import { assembliesOperations } from '../../src/areas/assemblies.ts';
import { ingestOperations } from '../../src/areas/ingest.ts';
import { analyticsOperations } from '../../src/areas/analytics.ts';
import { platformOperations } from '../../src/areas/platform.ts';
import type { TestService } from './app.ts';

const all = [...identityOperations, ...integrationsOperations, ...jobsOperations, ...billingOperations, ...billingConfigurationOperations, ...assembliesOperations, ...ingestOperations, ...analyticsOperations, ...platformOperations];

/** Any typed operation of the service. */
export type AnyOperation = (typeof all)[number];
/** A spec operation id. */
export type OperationId = AnyOperation['id'];

/** The typed operations by id. */
export const ops = Object.fromEntries(all.map((op) => [op.id, op])) as { [K in OperationId]: Extract<AnyOperation, { id: K }> };
/** An operation answered with JSON (not a stream): what `svc.call` and the tests' own HTTP clients take. */
export type JsonOp = Parameters<TestService['call']>[0];
