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

/** How a refused command maps to HTTP. */
export type DomainErrorKind = 'conflict' | 'not_found' | 'invalid' | 'forbidden';

/** A command the domain refuses; `code` is the stable machine-readable reason. */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly kind: DomainErrorKind = 'conflict',
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Exhaustiveness check for switches over event and command types. */
export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
