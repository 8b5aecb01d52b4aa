// The usage half of the billing-configuration area: usage facts, invoices generated from them, the orders behind
// metered lines, re-rating previews (the manifest billing-configuration.ts lists these).
import { billingUsageCommands } from '../commands/billing/usage.ts';
import { billingUsageInvoiceCommands } from '../commands/billing/usage-invoices.ts';
import { billingUsageInvoiceSystemCommands } from '../commands/billing/usage-invoices-due.ts';
import { billingUsageProjection } from '../projections/billing/usage.ts';
import { billingInvoiceOrdersProjection } from '../projections/billing/invoice-orders.ts';
import { billingInvoiceOrderQueries } from '../queries/billing/invoice-orders.ts';
import { billingUsageRerateQueries } from '../queries/billing/usage-rerate.ts';
import { usageInvoicesWorker } from '../workers/billing/usage-invoices.ts';
import { billingUsageMonthsProjection } from '../projections/billing/usage-months.ts';
import { billingUsageQueries } from '../queries/billing/usage-billing.ts';
import { billingUsageMonthQueries } from '../queries/billing/usage-months.ts';
import { billingCorrectionOperations, billingCorrectionProjections } from './billing-corrections.ts';

/** Typed usage operations (the internal ones too: invoked in process only). */
export const billingUsageOperations = [
  ...billingUsageCommands, ...billingUsageInvoiceCommands, ...billingUsageInvoiceSystemCommands, ...billingInvoiceOrderQueries, ...billingUsageRerateQueries,
  ...billingUsageQueries, ...billingUsageMonthQueries, ...billingCorrectionOperations,
];

/** Read models of usage facts and of the orders behind metered lines. */
export const billingUsageProjections = [billingUsageProjection, billingInvoiceOrdersProjection, billingUsageMonthsProjection, ...billingCorrectionProjections];

/** The worker that generates usage invoices once a month has ended. */
export const billingUsageWorkers = [usageInvoicesWorker];
