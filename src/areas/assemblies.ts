// The assemblies (tier1) area: vehicle assembly lookups, searches, the two streams and the experimental search.
import { assemblyCommands } from '../commands/assemblies/search.ts';
import { assemblyLookupCommands } from '../commands/assemblies/lookups.ts';
import { assemblyLookupsProjection } from '../projections/assemblies/lookups.ts';
import { assemblySearchesProjection } from '../projections/assemblies/searches.ts';
import { experimentalSearch } from '../queries/assemblies/taxonomy.ts';
import { assemblyStreams } from '../streams/assemblies.ts';
import { assemblyLookupWorker } from '../workers/assemblies/lookups.ts';
import type { Area } from './area.ts';

/** Typed assemblies operations (tests call them through these). */
export const assembliesOperations = [...assemblyCommands, experimentalSearch, ...assemblyStreams, ...assemblyLookupCommands];

/** The assemblies area as the composition root assembles it. */
export const assemblies: Area = {
  name: 'assemblies',
  operations: assembliesOperations,
  projections: [assemblyLookupsProjection, assemblySearchesProjection],
  workers: [assemblyLookupWorker],
};
