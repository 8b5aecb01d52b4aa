// How the demo seed tells its story (issue 30). The demo needs a past: an invoice a week overdue was issued three
// weeks ago. The seed does not move a clock back for one write; it tells the whole story in order, each step through
// the ordinary pipeline at the time it happens (its clock), so the log reads as a service running those weeks would
// have written it: times never go backwards, and finalize takes the issue date from its clock as it always does.
//
// Resumable: each step is recorded in demo_seed_steps with its answer once done, and runs under an idempotency key
// named after it. A start killed mid-seed completes it on its next start: done steps are read back, the step in
// flight replays its first answer (or runs, if it never wrote), the rest run. When the story happens is fixed by its
// first attempt (the `anchor` row), so a resumed seed sends the very same requests.
import type { z } from 'zod';
import type { Knex } from 'knex';
import type { App } from './app.ts';
import type { Caller, Invocable } from './contract/caller.ts';
import { invokeRegistered } from './pipeline/invoke.ts';

const ANCHOR = 'anchor';
const COMPLETE = 'complete';

/** The seed's journal and the clock of its story. */
export class SeedStory {
  private constructor(
    private readonly app: App,
    private readonly done: Map<string, unknown>,
    /** When the story's present is (its first attempt's start). */
    readonly anchor: Date,
    private readonly afterWrite?: (step: string) => void,
  ) {}

  /** True once a seed finished on this database. */
  static async complete(knex: Knex): Promise<boolean> {
    return (await knex('demo_seed_steps').where({ step: COMPLETE }).first()) !== undefined;
  }

  /** True when a seed began here (and may need completing). */
  static async begun(knex: Knex): Promise<boolean> {
    return (await knex('demo_seed_steps').where({ step: ANCHOR }).first()) !== undefined;
  }

  /** Opens the story: a new one now, or the one a killed start began. `afterWrite` (tests) runs after each step's write, before it is recorded. */
  static async open(app: App, afterWrite?: (step: string) => void): Promise<SeedStory> {
    const rows = (await app.knex('demo_seed_steps').select('step', 'result')) as { step: string; result: string }[];
    const done = new Map(rows.map((r) => [r.step, JSON.parse(r.result) as unknown]));
    let anchor = done.get(ANCHOR) as string | undefined;
    if (anchor === undefined) {
      anchor = app.clock.now().toISOString();
      await app.knex('demo_seed_steps').insert({ step: ANCHOR, result: JSON.stringify(anchor) });
    }
    return new SeedStory(app, done, new Date(anchor), afterWrite);
  }

  /** `days` before the story's present. */
  daysAgo(days: number): Date {
    return new Date(this.anchor.getTime() - days * 86_400_000);
  }

  /**
   * Step `name`: `op` invoked at `at` (the pipeline's clock) with the request typed by the operation's schema, or its
   * recorded answer when it was done before.
   */
  async call<Op extends Invocable & { request: z.ZodType }>(name: string, at: Date, op: Op, input: z.input<Op['request']>, by: Caller): Promise<z.output<Op['response']>> {
    if (this.done.has(name)) return this.done.get(name) as z.output<Op['response']>;
    const services = { ...this.app, clock: { now: () => at } };
    const { body } = await invokeRegistered(services, this.app.registry, op, input, { ...by, idempotencyKey: `demo-seed:${this.anchor.toISOString()}:${name.replaceAll(' ', '-')}` });
    this.afterWrite?.(name);
    await this.record(name, body);
    return body;
  }

  /** Whether step `name` was done. */
  has(name: string): boolean {
    return this.done.has(name);
  }

  /** Records step `name` (one that is not a single operation) as done. */
  async record(name: string, result: unknown): Promise<void> {
    await this.app.knex('demo_seed_steps').insert({ step: name, result: JSON.stringify(result ?? null) }).onConflict('step').ignore();
    this.done.set(name, result);
  }

  /** The seed is complete: written last, so a later start seeds nothing. */
  async finish(): Promise<void> {
    await this.record(COMPLETE, this.app.clock.now().toISOString());
  }
}
