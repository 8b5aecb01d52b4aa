// The billing-configuration area: relationships and their evidence, effective-dated baselines and pricing, history, resolve, preview.
import { configurationCommands } from '../commands/billing/configuration/index.ts';
import { billingConfigurationProjection } from '../projections/billing/configuration/configuration.ts';
import { configurationQueries } from '../queries/billing/configuration/index.ts';
import type { Area } from './area.ts';

/** Typed billing-configuration operations (tests call them through these). */
export const billingConfigurationOperations = [...configurationCommands, ...configurationQueries];

/** The billing-configuration area as the composition root assembles it. */
export const billingConfiguration: Area = { name: 'billing-configuration', operations: billingConfigurationOperations, projections: [billingConfigurationProjection] };
