// What an event field accepts is what its read-model column holds: no more (a year-0000 instant) and no less
// (an id Postgres keeps in a uuid column but outside RFC 9562's variants, as tools and older code wrote them).
import { expect } from 'chai';
import { EventId, EventInstant } from '../../src/domain/event-fields.ts';
import { customerCodec } from '../../src/domain/billing/customer.ts';
import { readEvent } from '../../src/domain/decider.ts';

describe('event fields', () => {
  it('read any 8-4-4-4-12 hex id a uuid column holds, and nothing else', () => {
    expect(EventId.safeParse('f153d00c-0fee-4161-7910-58a88d5732f4').success).to.equal(true);
    expect(EventId.safeParse('0190c6a1-0000-7000-8000-000000000001').success).to.equal(true);
    expect(EventId.safeParse('inv-1').success).to.equal(false);
  });

  it('read instants of years 0001-9999 only', () => {
    expect(EventInstant.safeParse('0001-01-01T00:00:00.000Z').success).to.equal(true);
    expect(EventInstant.safeParse('0000-12-31T23:59:59.000Z').success).to.equal(false);
  });

  it('read a customer stored with a non-RFC-variant id (the bench writes such ids in bulk)', () => {
    const data = { name: 'A', email: 'a@example.com', billing_address: null, currency: 'GBP', payment_terms_days: 30, tax_id: null, metadata: {}, customer_id: 'f153d00c-0fee-4161-7910-58a88d5732f4', organization_id: 'f153d00c-0fee-4161-7910-58a88d5732f5', created_at: '2026-01-01T00:00:00.000Z' };
    expect(readEvent(customerCodec, { type: 'CustomerCreated', data }).type).to.equal('CustomerCreated');
  });
});
