// Reading stored events: type renames and upcasters turn old shapes into the current one; what still does not parse is refused loudly.
import { expect } from 'chai';
import { z } from 'zod';
import { EventReadError, addedFields, eventCodec, eventSchemas, readEvent, renamedField } from '../../src/domain/decider.ts';
import { invoiceCodec } from '../../src/domain/billing/invoice.ts';

const ref = { invoice_id: '0190c6a2-0000-7000-8000-0000000000b1', organization_id: '0190c6a2-0000-7000-8000-0000000000a1', customer_id: '0190c6a2-0000-7000-8000-0000000000c1', currency: 'GBP' };
const lines = [{ kind: 'manual', description: 'Work', quantity: 1, unit_amount: 1000, amount: 1000 }];
const current = { ...ref, lines, subtotal: 1000, total: 1000, memo: 'Thanks', metadata: { po: '42' }, created_at: '2026-01-15T09:00:00.000Z' };

describe('reading stored events', () => {
  it('reads an InvoiceDrafted stored before memo and metadata existed as having none', () => {
    const { memo: _m, metadata: _md, ...old } = current;
    expect(readEvent(invoiceCodec, { type: 'InvoiceDrafted', data: old })).to.deep.equal({ type: 'InvoiceDrafted', data: { ...old, memo: null, metadata: {} } });
  });

  it('reads a current-shape event unchanged', () => {
    expect(readEvent(invoiceCodec, { type: 'InvoiceDrafted', data: current })).to.deep.equal({ type: 'InvoiceDrafted', data: current });
  });

  it('refuses, naming stream and type, a stored event that does not parse or whose type is unknown', () => {
    const { total: _t, ...broken } = current;
    let error: unknown;
    try {
      readEvent(invoiceCodec, { type: 'InvoiceDrafted', data: broken, streamId: 'invoice-inv-1' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(EventReadError);
    expect(error).to.include({ stream: 'invoice-inv-1', type: 'InvoiceDrafted' });
    expect(() => readEvent(invoiceCodec, { type: 'InvoiceTeleported', data: {} })).to.throw(EventReadError);
  });

  it('reads a renamed type and a renamed field as the current ones', () => {
    const codec = eventCodec(eventSchemas({ NoteAdded: z.object({ body: z.string(), created_at: z.string() }) }), {
      renames: { CommentPosted: 'NoteAdded' },
      upcasters: { NoteAdded: renamedField('text', 'body') },
    });
    expect(readEvent(codec, { type: 'CommentPosted', data: { text: 'hi', created_at: 't' } })).to.deep.equal({ type: 'NoteAdded', data: { body: 'hi', created_at: 't' } });
    expect(readEvent(codec, { type: 'NoteAdded', data: { body: 'hi', created_at: 't' } })).to.deep.equal({ type: 'NoteAdded', data: { body: 'hi', created_at: 't' } });
  });

  it('adds a later field only where it is missing', () => {
    const upcast = addedFields({ grace_days: 14 });
    expect(upcast({ a: 1 })).to.deep.equal({ a: 1, grace_days: 14 });
    expect(upcast({ a: 1, grace_days: 3 })).to.deep.equal({ a: 1, grace_days: 3 });
  });
});
