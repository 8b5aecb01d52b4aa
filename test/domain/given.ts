// Given events / when command / then events, an error code, or nothing: the shape of every decider test.
import { expect } from 'chai';
import type { Decider, DomainEvent } from '../../src/domain/decider.ts';
import { DomainError } from '../../src/domain/errors.ts';

/** What a decider said to a command: the events it decided, or the code it refused with. */
type Outcome<E> = { events: E[] } | { error: string; details: Record<string, unknown> | undefined };

function decide<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, state: S, command: C): Outcome<E> {
  try {
    return { events: decider.decide(command, state) };
  } catch (err) {
    if (err instanceof DomainError) return { error: err.code, details: err.details };
    throw err;
  }
}

function eventsOf<E>(outcome: Outcome<E>): E[] {
  if ('error' in outcome) expect.fail(`expected events, the command was refused with ${outcome.error}`);
  return outcome.events;
}

/** Folds `events` into state; `when(command)` runs the command and returns what to assert on the outcome. */
export function given<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, events: E[]) {
  const state = events.reduce(decider.evolve, decider.initialState());
  return {
    /** The state the given events fold into. */
    state,
    when(command: C) {
      const outcome = decide(decider, state, command);
      return {
        /** The decided events are exactly `expected`; or, given a function, they satisfy its assertions (returns the events). */
        then(expected: E[] | ((events: E[]) => void)): E[] {
          const events = eventsOf(outcome);
          if (typeof expected === 'function') expected(events);
          else expect(events).to.deep.equal(expected);
          return events;
        },
        /** The command is refused with this code, and these details when given (never the HTTP status: that belongs to the error catalogues). */
        thenError(code: string, details?: Record<string, unknown>): void {
          if (!('error' in outcome)) expect.fail(`expected ${code}, the command decided ${JSON.stringify(outcome.events.map((e) => e.type))}`);
          expect(outcome.error).to.equal(code);
          if (details) expect(outcome.details).to.deep.equal(details);
        },
        /** The command is accepted and decides nothing (an idempotent repeat or a no-op). */
        thenNothing(): void {
          expect(eventsOf(outcome)).to.deep.equal([]);
        },
      };
    },
  };
}
