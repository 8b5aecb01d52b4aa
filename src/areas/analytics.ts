// The analytics area: events logged by organization users, stored and counted per name and day.
import { analyticsCommands } from '../commands/analytics/events.ts';
import { analyticsEventsProjection } from '../projections/analytics/events.ts';
import { analyticsQueries } from '../queries/analytics/events.ts';
import type { Area } from './area.ts';

/** Typed analytics operations. */
export const analyticsOperations = [...analyticsCommands, ...analyticsQueries];

/** The analytics area as the composition root assembles it. */
export const analytics: Area = { name: 'analytics', operations: analyticsOperations, projections: [analyticsEventsProjection] };
