// The test helper that draws values from zod schemas: what it draws passes the schema, edges included, and a shape it
// does not know stops the test instead of being skipped.
import { expect } from 'chai';
import fc from 'fast-check';
import { z } from 'zod';
import { EventAmount, EventDate, EventId, EventInstant, EventInt32 } from '../../src/domain/event-fields.ts';
import { UnsupportedSchemaError, zodArbitrary } from '../support/zod-arbitrary.ts';

const Sample = z.strictObject({
  id: EventId,
  at: EventInstant,
  offset_at: z.iso.datetime({ offset: true }),
  on: EventDate,
  amount: EventAmount,
  line: EventInt32.min(0),
  ratio: z.number().gt(0).lte(1),
  name: z.string().trim().min(1).max(20),
  email: z.email(),
  code: z.string().regex(/^[A-Z]{3}$/),
  kind: z.enum(['a', 'b']),
  tag: z.literal('x'),
  note: z.string().nullable().optional(),
  tags: z.array(z.string().max(5)).min(1).max(3),
  props: z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  either: z.discriminatedUnion('t', [z.object({ t: z.literal('n'), n: z.int() }), z.object({ t: z.literal('s'), s: z.string() })]),
  big: z.bigint().min(-5n).max(5n),
  even: z.int().multipleOf(2),
  pair: z.tuple([z.boolean(), z.null()]),
}).refine((v) => v.tags.length <= v.name.length + 3, 'a cross-field refinement');

describe('zodArbitrary', () => {
  it('draws only values that pass the schema, edges among them', () => {
    const values = fc.sample(zodArbitrary(Sample), { numRuns: 500, seed: 7 });
    for (const v of values) expect(Sample.safeParse(v).success, JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x))).to.equal(true);
    const years = new Set(values.map((v) => v.at.slice(0, 4)));
    expect([...years].some((y) => y === '0001' || y === '9999'), 'an edge year').to.equal(true);
    expect(values.some((v) => v.note === undefined && !('note' in v)), 'an optional key left out').to.equal(true);
    expect(values.some((v) => v.amount === Number.MAX_SAFE_INTEGER || v.amount === Number.MIN_SAFE_INTEGER), 'a safe-integer bound').to.equal(true);
  });

  it('refuses a schema shape it cannot draw, naming where it is', () => {
    for (const [schema, path] of [
      [z.object({ a: z.object({ b: z.any() }) }), '$.a.b'],
      [z.object({ when: z.date() }), '$.when'],
      [z.object({ site: z.url() }), '$.site'],
      [z.array(z.string().includes('x')), '$[]'],
    ] as const) {
      expect(() => zodArbitrary(schema), path).to.throw(UnsupportedSchemaError).with.property('path', path);
    }
  });
});
