// Gapless invoice numbers: one counter stream per year; the n-th event of the stream is number n.
import { z } from 'zod';
import { eventCodec, eventSchemas } from '../decider.ts';
import { nameId } from '../../ids.ts';

/** The one event of a counter stream: number `revision + 1` of `year` now belongs to `invoice_id`. */
export const invoiceNumberEvents = eventSchemas({
  InvoiceNumberAllocated: z.object({ invoice_id: z.string(), year: z.number(), allocated_at: z.string() }),
});

/** How counter events are read (the events property test feeds them through every projection). */
export const invoiceNumberCodec = eventCodec(invoiceNumberEvents);

/** Stream of the counter of one year: `invoicenumber-<nameId(year)>`. */
export function invoiceNumberStream(year: number): string {
  return `invoicenumber-${nameId('invoice-number-year', String(year))}`;
}

/**
 * Event id of an invoice's allocation in one year. Deterministic, so a retried finalize re-appends the
 * same event, the store reports it as a duplicate, and the invoice gets its first number back.
 */
export function allocationEventId(invoiceId: string, year: number): string {
  return nameId('invoice-number-allocation', `${year}:${invoiceId}`);
}

/** `INV-2026-000042`. */
export function formatInvoiceNumber(year: number, sequence: number): string {
  return `INV-${year}-${String(sequence).padStart(6, '0')}`;
}
