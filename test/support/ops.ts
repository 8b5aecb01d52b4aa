// Every operation with its types, by spec id (src/areas/operations.ts, which the console uses too): tests call
// `svc.call(ops['billing.invoices.get'], id, token)`, so a request body that breaks the schema, or a read of a field
// the response lacks, fails the type-check.
import type { TestService } from './app.ts';

export { ops } from '../../src/areas/operations.ts';
/** An operation answered with JSON (not a stream): what `svc.call` and the tests' own HTTP clients take. */
export type JsonOp = Parameters<TestService['call']>[0];
