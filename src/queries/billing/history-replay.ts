// Replays one aggregate's stored events through its decider's `evolve`, keeping the state after each event,
// and lists what each event changed: the state is never re-implemented here.
import { type Decider, type DomainEvent, type EventCodec, EventReadError, readEvent } from '../../domain/decider.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';

/** One replayed event: the stored record, its data as read today, and the state before and after it. */
export interface ReplayStep {
  recorded: RecordedEvent;
  data: Record<string, unknown>;
  before: unknown;
  after: unknown;
  /** Why the stored event does not read as its type (it is shown as stored and leaves the state as it was); null when it reads. */
  unreadable: string | null;
}

/** Folds stored events through a decider (each read through its codec, so old shapes read as current ones). */
export type Replay = (events: RecordedEvent[]) => { steps: ReplayStep[]; state: unknown };

/** A Replay bound to `decider`; `view` picks the part of the state the timeline shows (a payment inside its invoice). */
export function replayer<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, view: (state: S) => unknown = (s) => s): Replay {
  const codec: EventCodec<E> | undefined = decider.events;
  // Only aggregates whose events are read through schemas can be replayed safely (old shapes upcast).
  if (!codec) throw new Error('replayer needs a decider with an event codec');
  return (events) => {
    let state = decider.initialState();
    const steps: ReplayStep[] = [];
    for (const recorded of events) {
      let event: E;
      let next: S;
      try {
        event = readEvent(codec, recorded);
        next = decider.evolve(state, event);
      } catch (err) {
        // The audit trail shows what is stored, even what no longer reads: an operator needs to see it to repair it.
        const why = err instanceof EventReadError ? err.issues : `does not apply to the state before it: ${err instanceof Error ? err.message : String(err)}`;
        steps.push({ recorded, data: asRecord(recorded.data), before: view(state), after: view(state), unreadable: why });
        continue;
      }
      steps.push({ recorded, data: asRecord(event.data), before: view(state), after: view(next), unreadable: null });
      state = next;
    }
    return { steps, state: view(state) };
  };
}

/** A changed field of a JSON state. */
export interface Change {
  path: string;
  before: unknown;
  after: unknown;
}

/** Fields that differ between two JSON values, depth first, as dotted paths (at most `max`). */
export function changes(before: unknown, after: unknown, max = 200): Change[] {
  const out: Change[] = [];
  const walk = (a: unknown, b: unknown, path: string[]): void => {
    if (out.length >= max || sameJson(a, b)) return;
    const containers = (isRecord(a) && isRecord(b)) || (Array.isArray(a) && Array.isArray(b));
    if (!containers || path.length >= 8) {
      out.push({ path: path.join('.') || '(whole)', before: a ?? null, after: b ?? null });
      return;
    }
    const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
    for (const k of keys) walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], [...path, k]);
  };
  walk(before, after, []);
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** True for a plain JSON object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asRecord(v: unknown): Record<string, unknown> {
  return isRecord(v) ? v : { value: v };
}
