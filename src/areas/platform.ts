// The platform area: the health of the read models and an operator's repair of them (no projections of its own).
import { platformProjectionCommands } from '../commands/platform/projections.ts';
import { platformHealthQueries } from '../queries/platform/health.ts';
import type { Area } from './area.ts';

/** Typed platform operations. */
export const platformOperations = [...platformHealthQueries, ...platformProjectionCommands];

/** The platform area as the composition root assembles it. */
export const platform: Area = { name: 'platform', operations: platformOperations, projections: [] };
