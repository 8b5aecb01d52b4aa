// assembly_searches: every completed search with its log position, read by queries/assemblies/searches.ts
// (the replay of assemblies.subscribe.stream).
import { type AssemblySearchEvent, assemblySearchCodec } from '../../domain/assemblies/search.ts';
import type { LogPosition } from '../../eventstore/port.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** A completed search as the subscribe stream delivers it. */
export type SearchDoc = Extract<AssemblySearchEvent, { type: 'AssembliesSearchCompleted' }>['data'] & {
  /** Log position of the event: the stream's event id and resume point. */
  position: LogPosition;
};

/** Builds assembly_searches from search events. */
export const assemblySearchesProjection = documentProjection({
  name: 'assemblies.searches',
  version: 1,
  tables: [
    documentTable<SearchDoc, AssemblySearchEvent>({
      table: 'assembly_searches',
      events: assemblySearchCodec,
      columns: (d) => ({ organization_id: d.organization_id, position: d.position }),
      handlers: {
        AssembliesSearchCompleted: (_doc, d, e) => ({ ...d, position: e.position }),
      },
    }),
  ],
});
