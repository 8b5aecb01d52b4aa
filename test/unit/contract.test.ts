// The test-run contract check: a success body must parse with the declared response, an error code must be declared.
import { expect } from 'chai';
import { errorViolation, successViolation } from '../../src/contract/check.ts';
import { invoicesGet } from '../../src/queries/billing/invoices.ts';
import { customersInsert } from '../../src/commands/billing/customers.ts';
import { z } from 'zod';
import { operation } from '../../src/contract/operation.ts';
import { billingErrors } from '../../src/domain/billing/errors.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { RequestContext } from '../../src/context.ts';

describe('operation contract check', () => {
  it('names an undeclared error code, and accepts declared and binding-wide ones', () => {
    expect(errorViolation(invoicesGet, 'invoice_not_found')).to.equal(null);
    expect(errorViolation(invoicesGet, 'unauthenticated')).to.equal(null);
    expect(errorViolation(invoicesGet, 'customer_not_found')).to.match(/billing\.invoices\.get answered code customer_not_found/);
    // Writes may also answer the idempotency and concurrency codes.
    expect(errorViolation(customersInsert, 'idempotency_key_reused')).to.equal(null);
    expect(errorViolation(invoicesGet, 'idempotency_key_reused')).to.not.equal(null);
  });

  it('names the field of a success body that breaks the response schema', () => {
    expect(successViolation(invoicesGet, { id: 'not-an-invoice' })).to.match(/^billing\.invoices\.get answered a body its response schema rejects: .*number/);
  });

  it("makes a handler's errors from its declaration: a declared code carries its catalogue status, an undeclared one does not type-check", async () => {
    const op = operation({
      id: 'test.errors', surface: 'core', tags: ['Billing'], summary: 'Test.', request: null, response: z.object({}), error: 'test.Error',
      errors: billingErrors.list('invoice_not_found'),
      access: 'billing_staff',
      async handle(ctx) {
        if (ctx.now.getTime() < 0) {
          // @ts-expect-error customer_not_found is not declared by this operation: tsc (npm test's first step) refuses it.
          throw ctx.errors.error('customer_not_found', 'never thrown');
        }
        throw ctx.errors.error('invoice_not_found', 'No invoice x.');
      },
    });
    // A context with only what this handler reads: the pipeline builds the real one.
    const ctx = { now: new Date(0), errors: op.errors } as Pick<RequestContext<'billing_staff', 'invoice_not_found'>, 'now' | 'errors'> as RequestContext<'billing_staff', 'invoice_not_found'>;
    const thrown = await op.handle(ctx, undefined).then(() => null, (e: unknown) => e);
    expect(thrown).to.be.instanceOf(DomainError);
    expect(thrown).to.include({ code: 'invoice_not_found', status: 404, message: 'No invoice x.' });
    expect([...op.errors]).to.deep.equal(['invoice_not_found']);
  });
});
