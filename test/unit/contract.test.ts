// The test-run contract check: a success body must parse with the declared response, an error code must be declared.
import { expect } from 'chai';
import { errorViolation, successViolation } from '../../src/contract/check.ts';
import { invoicesGet } from '../../src/queries/billing/invoices.ts';
import { customersInsert } from '../../src/commands/billing/customers.ts';

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
});
