// An erased customer's personal values leave the feed too: its earlier customer.created / customer.updated documents
// are rewritten by the feed projection (events.ts) when the erasure is projected (a rebuild reads them as "[erased]"
// from the log already). The documents are rewritten here, in memory: one write per row, whatever the number of fields.
import type { RecordedEvent } from '../../../eventstore/port.ts';
import { CustomerFieldsSchema } from '../../../domain/billing/customer.ts';
import { ERASED, personalPaths } from '../../../domain/personal.ts';
import { streamKey } from '../../recorded.ts';

const FIELDS = personalPaths(CustomerFieldsSchema);

/** What an erasure event asks of the feed: the customer, and the paths in its documents to set to "[erased]". */
export interface FeedErasure {
  customerId: string;
  paths: string[][];
}

/** The rewrite an erasure event asks for (null for other events). */
export function feedErasure(e: RecordedEvent): FeedErasure | null {
  if (!e.streamId.startsWith('customer-') || (e.type !== 'DataSubjectErased' && e.type !== 'RetainedDataErased')) return null;
  const data = e.data as { retained?: unknown };
  const everything = e.type === 'RetainedDataErased' || (Array.isArray(data.retained) && data.retained.length === 0);
  const fields = FIELDS.filter((f) => everything || !f.retained);
  return { customerId: streamKey(e), paths: fields.flatMap((f) => [['data', 'customer', ...f.path], ['data', 'changes', ...f.path]]) };
}

/** `doc` with each path that holds text set to "[erased]" (a copy; null when nothing changed). */
export function erasedDoc(doc: unknown, paths: string[][]): unknown {
  const copy = structuredClone(doc);
  let changed = false;
  for (const path of paths) {
    let at: unknown = copy;
    for (const k of path.slice(0, -1)) at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[k] : undefined;
    const last = path[path.length - 1];
    if (typeof at === 'object' && at !== null && last !== undefined && typeof (at as Record<string, unknown>)[last] === 'string' && (at as Record<string, unknown>)[last] !== ERASED) {
      (at as Record<string, unknown>)[last] = ERASED;
      changed = true;
    }
  }
  return changed ? copy : null;
}
