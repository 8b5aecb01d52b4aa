// Usage rating: usage facts, invoices generated from them, the orders behind metered lines, re-rating previews.
import { billingUsageCommands } from '../commands/billing/usage.ts';
import { billingUsageProjection } from '../projections/billing/usage.ts';
import type { Area } from './area.ts';

/** Typed usage operations (tests call them through these). */
export const billingUsageOperations = [...billingUsageCommands];

/** The usage half of billing configuration as the composition root assembles it. */
export const billingUsage: Area = { name: 'billing-usage', operations: billingUsageOperations, projections: [billingUsageProjection] };
