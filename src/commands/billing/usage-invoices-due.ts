// billing.invoices.generate-due (internal): the usage invoice worker's generation of one subscription's draft for one ended
// month, as the system. The same generation as billing.invoices.generate (generateUsageInvoice), without the staff answer.
import { operation } from '../../contract/operation.ts';
import { UsageInvoiceDueRequest, UsageInvoiceDueResult } from '../../contract/schemas/billing-system.ts';
import { generateUsageInvoice, invoicesGenerate } from './usage-invoices.ts';

/** billing.invoices.generate-due */
export const invoicesGenerateDue = operation({
  id: 'billing.invoices.generate-due',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Generates the usage invoice of a subscription for a month that has ended (the usage invoice worker).',
  description: 'Internal: invoked by the usage invoice worker as the system (job `usage-invoices-worker`); refuses as billing.invoices.generate does.',
  request: UsageInvoiceDueRequest,
  response: UsageInvoiceDueResult,
  error: 'billing.InvoiceGenerateError',
  errors: invoicesGenerate.errors,
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const { invoiceId } = await generateUsageInvoice(ctx, req.subscription_id, req.period);
    return { invoice_id: invoiceId };
  },
});

/** Internal operations of usage invoices. */
export const billingUsageInvoiceSystemCommands = [invoicesGenerateDue];
