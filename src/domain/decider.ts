// The shape of every aggregate: pure decide/evolve functions, no I/O (Emmett's Decider).

/** A domain event as deciders see it: a type tag and its data. */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/** Pure state machine of one aggregate. */
export interface Decider<C, E extends DomainEvent, S> {
  initialState: () => S;
  evolve: (state: S, event: E) => S;
  decide: (command: C, state: S) => E[];
}

/** Exhaustiveness check for switches over event and command types. */
export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
