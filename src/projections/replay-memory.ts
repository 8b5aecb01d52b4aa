// How much a bulk replay may hold in memory. Its folded documents stay across writes up to a count scaled to the heap's
// limit: a fixed 250,000 made a 2M-event rebuild of a million customers drop them and read every one back for its next
// event (issue 31's scale phase: x2.9 the cost per event of a 200k-event rebuild). The heap's use is only a backstop:
// it counts garbage not yet collected, so it cannot tell what the documents take.
import v8 from 'node:v8';

const limit = v8.getHeapStatistics().heap_size_limit;

/** Documents a replay keeps in memory: one per 4 KiB of the heap's limit (about a million in a 4 GiB heap; a customer's takes about 1 KiB). */
export const REPLAY_DOCUMENTS = Math.floor(limit / 4096);

/** Whether the heap is three quarters full, whatever the count: write what is folded and drop the documents held. */
export function replayMemoryFull(): boolean {
  return v8.getHeapStatistics().used_heap_size >= limit * 0.75;
}
