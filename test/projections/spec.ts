// Projection specifications: given events appended through the real event store, when the real runner applies
// them, then the documents of the projection's tables are the expected ones. Embedded database (and Postgres when set).
import { expect } from 'chai';
import pino from 'pino';
import { TestClock } from '../../src/clock.ts';
import type { DomainEvent } from '../../src/domain/decider.ts';
import type { Actor } from '../../src/eventstore/port.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { ProjectionRunner } from '../../src/projections/engine/runner.ts';
import { type Backend, suiteStore } from '../support/db.ts';

/** One event to store: its stream, the event (old shapes welcome: it is stored as given), and who did it. */
export interface GivenEvent {
  stream: string;
  event: { type: string; data: unknown };
  actor?: Actor;
  orgId?: string | null;
}

/** The events of one stream, typed by its aggregate's event union. */
export function on<E extends DomainEvent>(stream: string, events: E[], opts: { actor?: Actor; orgId?: string | null } = {}): GivenEvent[] {
  return events.map((event) => ({ stream, event, ...opts }));
}

/** How rows are compared: `without` drops document fields that are not deterministic (log positions); `columns` compares `{ ...columns, doc }`. */
export interface ThenOptions {
  without?: string[];
  columns?: string[];
}

/** The actor given events are recorded with unless they name another. */
export const SPEC_ACTOR: Actor = { type: 'user', id: '0190c6a2-0000-7000-8000-00000000f001' };

/** When the first given event is recorded; each later one is a second later. */
export const SPEC_START = '2026-01-15T09:00:00.000Z';

/**
 * Registers before/after hooks that open one database for the suite, and returns `given(projection, events)`:
 * each call starts from an empty log and empty read model, appends the events, lets a ProjectionRunner catch up,
 * and answers `then({ table: docs })`, comparing each table's `doc` column in id order.
 */
export function projectionSpec(backend: Backend) {
  const opened = suiteStore(backend);

  async function run(projection: Projection, given: GivenEvent[], opts: ThenOptions): Promise<Record<string, unknown[]>> {
    await opened.db.knex.raw('truncate es_events');
    await opened.db.knex('projection_checkpoints').where({ name: projection.name }).delete();
    const clock = new TestClock(SPEC_START);
    let n = 0;
    for (const g of given) {
      n++;
      const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      const metadata = { org_id: g.orgId ?? null, actor: g.actor ?? SPEC_ACTOR, request_id: null, correlation_id: null, causation_id: null };
      await opened.store.appendToStream(g.stream, [{ id, type: g.event.type, data: g.event.data, metadata }], { expectedRevision: 'any', now: clock.now() });
      clock.advance(1000);
    }
    const runner = new ProjectionRunner(opened.db.knex, opened.store, [projection], { logger: pino({ level: 'silent' }), clock });
    await runner.prepare();
    await runner.catchUp();
    const out: Record<string, unknown[]> = {};
    const columns = opts.columns ?? [];
    for (const t of projection.tables) {
      const rows = (await opened.db.knex(t).select('doc', ...columns).orderBy('id')) as { doc: Record<string, unknown> }[];
      out[t] = rows.map(({ doc, ...cols }) => {
        const shown = Object.fromEntries(Object.entries(doc).filter(([k]) => !opts.without?.includes(k)));
        return columns.length ? { ...cols, doc: shown } : shown;
      });
    }
    return out;
  }

  return {
    given(projection: Projection, events: GivenEvent[]) {
      return {
        /** Every table named in `expected` holds exactly these documents (id order); tables not named must be empty. */
        async then(expected: Record<string, unknown[]>, opts: ThenOptions = {}): Promise<void> {
          const docs = await run(projection, events, opts);
          for (const table of projection.tables) expect(docs[table], table).to.deep.equal(expected[table] ?? []);
          for (const table of Object.keys(expected)) expect(projection.tables, `${projection.name} owns ${table}`).to.include(table);
        },
      };
    },
  };
}
