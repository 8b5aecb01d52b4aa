// Given events / when command / then events or error code: the shape of every decider test.
import { expect } from 'chai';
import type { Decider, DomainEvent } from '../../src/domain/decider.ts';
import { DomainError } from '../../src/domain/errors.ts';

/** HTTP status of each kind of refusal, as the areas' error catalogues assign them. */
const KIND_STATUS = { conflict: 409, not_found: 404, invalid: 400, forbidden: 403 } as const;

/** Folds `given` into state, runs `when`, and returns an object to assert the outcome on. */
export function given<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, events: E[]) {
  const state = events.reduce(decider.evolve, decider.initialState());
  return {
    when(command: C) {
      return {
        then(expected: E[]): void {
          expect(decider.decide(command, state)).to.deep.equal(expected);
        },
        thenError(code: string, kind?: keyof typeof KIND_STATUS): void {
          let error: unknown;
          try {
            decider.decide(command, state);
          } catch (err) {
            error = err;
          }
          expect(error, 'expected a DomainError').to.be.instanceOf(DomainError);
          expect((error as DomainError).code).to.equal(code);
          if (kind) expect((error as DomainError).status).to.equal(KIND_STATUS[kind]);
        },
      };
    },
  };
}
