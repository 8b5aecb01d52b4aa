// Ingest aggregates bound to their streams once: every import write goes through this.
import { importChunkDecider, importDecider } from '../../domain/ingest/import.ts';
import { commandHandler } from '../run.ts';

/** `import-<id>`: one file of sellable items. */
export const imports = commandHandler(importDecider, (id) => `import-${id}`);
/** `importchunk-<import id>-<k>`: the k-th chunk of rows of an import (0-based). */
export const importChunks = commandHandler(importChunkDecider, (c: { importId: string; chunk: number }) => `importchunk-${c.importId}-${c.chunk}`);
