// Usage rating: usage facts, invoices generated from them, the orders behind metered lines, re-rating previews.
import { billingUsageCommands } from '../commands/billing/usage.ts';
import { billingUsageInvoiceCommands } from '../commands/billing/usage-invoices.ts';
import { billingUsageProjection } from '../projections/billing/usage.ts';
import { billingInvoiceOrdersProjection } from '../projections/billing/invoice-orders.ts';
import { billingInvoiceOrderQueries } from '../queries/billing/invoice-orders.ts';
import { billingUsageRerateQueries } from '../queries/billing/usage-rerate.ts';
import { usageInvoicesWorker } from '../workers/billing/usage-invoices.ts';
import type { Area } from './area.ts';

/** Typed usage operations (tests call them through these). */
export const billingUsageOperations = [...billingUsageCommands, ...billingUsageInvoiceCommands, ...billingInvoiceOrderQueries, ...billingUsageRerateQueries];

/** The usage half of billing configuration as the composition root assembles it. */
export const billingUsage: Area = {
  name: 'billing-usage',
  operations: billingUsageOperations,
  projections: [billingUsageProjection, billingInvoiceOrdersProjection],
  workers: [usageInvoicesWorker],
};
