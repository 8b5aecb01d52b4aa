// Re-rating corrections of usage invoices (issue 26 section 5): apply a re-rating diff as documents, list corrections and
// their orders, and preview a configuration revision's impact before saving it (the usage manifest billing-usage.ts lists these).
import { billingInvoiceCorrectionCommands } from '../commands/billing/invoice-corrections.ts';
import { revisionImpactOperations } from '../commands/billing/revision-impact.ts';
import { billingInvoiceCorrectionsProjection } from '../projections/billing/invoice-corrections.ts';
import { billingInvoiceCorrectionQueries } from '../queries/billing/invoice-corrections.ts';

/** Typed correction operations. */
export const billingCorrectionOperations = [...billingInvoiceCorrectionCommands, ...billingInvoiceCorrectionQueries, ...revisionImpactOperations];

/** The read model of corrections and the orders behind their lines. */
export const billingCorrectionProjections = [billingInvoiceCorrectionsProjection];
