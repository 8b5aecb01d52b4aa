// Request bodies for fuzzing, generated from an operation's JSON Schema (itself generated from its zod
// schema): plausible values with hostile ones mixed in at every level.
import fc from 'fast-check';
import { z, type ZodType } from 'zod';

type Schema = Record<string, unknown>;

const nest = (depth: number): unknown => (depth === 0 ? 'bottom' : { n: nest(depth - 1) });

/** Values no field should ever turn into a 5xx or a half-written change. */
export function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom<unknown>(
      '\ud800',
      'tail \udfff',
      '\udc00\ud800',
      'a\u0000b',
      '\u0000',
      '',
      ' ',
      'x'.repeat(70_000),
      -1,
      0,
      1e308,
      -1e308,
      2 ** 53 + 2,
      1.5,
      true,
      null,
      [],
      {},
      [[[[[]]]]],
      "'; drop table es_events; --",
      '<script>alert(1)</script>',
      '0190c6a2-0000-7000-8000-000000000000',
      '2026-02-30',
      '9999-12-31T23:59:59Z',
      JSON.parse('{"__proto__":{"admin":true}}'),
    ),
    fc.string({ unit: 'binary', maxLength: 24 }),
    fc.integer({ min: 20, max: 60 }).map(nest),
    fc.double(),
  );
}

/** Bodies for a request schema; `ids` are uuids of existing resources, so some lookups find something. */
export function requestBodies(request: ZodType | null, ids: string[]): fc.Arbitrary<unknown> {
  if (request === null) return fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant({}) }, { weight: 3, arbitrary: hostileValue() }, { weight: 2, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), hostileValue(), { maxKeys: 3 }) });
  const root = z.toJSONSchema(request, { io: 'input', unrepresentable: 'any' }) as Schema;
  const uuid = fc.oneof(fc.constantFrom(...ids), fc.uuid());
  // Mostly plausible bodies (so handlers run), many with a hostile value somewhere, some hostile as a whole.
  return fc.oneof(
    { weight: 3, arbitrary: fromSchema(root, root, uuid, 0, 0) },
    { weight: 4, arbitrary: fromSchema(root, root, uuid, 0, 1) },
    { weight: 1, arbitrary: hostileValue() },
  );
}

function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace(/^#\/\$defs\//, '');
  const defs = (root.$defs ?? {}) as Record<string, Schema>;
  return resolve(defs[name] ?? {}, root);
}

// `hostile` 0: plausible values only; 1: each value is hostile with probability 1 in 9.
function fromSchema(input: Schema, root: Schema, uuid: fc.Arbitrary<string>, depth: number, hostile: 0 | 1): fc.Arbitrary<unknown> {
  const plausible = plausibleFor(resolve(input, root), root, uuid, depth, hostile);
  return hostile ? fc.oneof({ weight: 8, arbitrary: plausible }, { weight: 1, arbitrary: hostileValue() }) : plausible;
}

function plausibleFor(schema: Schema, root: Schema, uuid: fc.Arbitrary<string>, depth: number, hostile: 0 | 1): fc.Arbitrary<unknown> {
  if (depth > 8) return hostileValue();
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => fromSchema(s, root, uuid, depth + 1, hostile)));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const type = schema.type;
  if (Array.isArray(type)) return fc.oneof(...type.map((t) => plausibleFor({ ...schema, type: t }, root, uuid, depth, hostile)));
  switch (type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      const record = fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, fromSchema(s, root, uuid, depth + 1, hostile)])), { requiredKeys: required.filter((k) => k in props) });
      const extra = typeof schema.additionalProperties === 'object' ? fc.dictionary(hostile ? fc.string({ unit: 'binary', maxLength: 10 }) : fc.string({ minLength: 1, maxLength: 10 }), fromSchema(schema.additionalProperties as Schema, root, uuid, depth + 1, hostile), { maxKeys: 3 }) : fc.constant({});
      const unknown = hostile ? fc.option(fc.tuple(fc.constantFrom('unknown_field', 'id2', '__proto__', 'constructor'), hostileValue()), { freq: 6 }) : fc.constant(null);
      return fc.tuple(record, extra, unknown).map(([r, e, u]) => {
        const out: Record<string, unknown> = Object.fromEntries([...Object.entries(e), ...Object.entries(r)]);
        if (u) Object.defineProperty(out, u[0], { value: u[1], enumerable: true, configurable: true, writable: true });
        return out;
      });
    }
    case 'array':
      return fc.array(fromSchema((schema.items ?? {}) as Schema, root, uuid, depth + 1, hostile), { minLength: Number(schema.minItems ?? 0), maxLength: Math.max(3, Number(schema.minItems ?? 0)) });
    case 'string':
      if (schema.format === 'uuid') return uuid;
      if (schema.format === 'date-time') return fc.constantFrom('2026-03-10T09:00:00Z', '2026-01-01T00:00:00.000Z');
      if (schema.format === 'date' || String(schema.pattern ?? '').includes('\\d{4}-')) return fc.constantFrom('2026-03-10', '2026-01-01', '2025-12-31', '1900-01-01');
      if (schema.format === 'email') return fc.constantFrom('a@example.com', 'ap@acme.example');
      if (typeof schema.pattern === 'string' && /A-Z/.test(schema.pattern)) return fc.constantFrom('GBP', 'EUR', 'GB', 'USD');
      return fc.string({ minLength: Math.min(Number(schema.minLength ?? 1), 16), maxLength: Math.max(Math.min(Number(schema.maxLength ?? 16), 16), Math.min(Number(schema.minLength ?? 1), 16)) });
    case 'integer':
    {
      const min = Math.max(Number(schema.minimum ?? -100), Number.MIN_SAFE_INTEGER);
      const max = Math.min(Number(schema.maximum ?? 10_000_000), Number.MAX_SAFE_INTEGER);
      return fc.oneof(fc.integer({ min: Math.max(min, 0), max: Math.max(Math.min(max, 5000), Math.max(min, 0)) }), fc.integer({ min, max }));
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return hostileValue();
  }
}
