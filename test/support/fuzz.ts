// Request bodies for fuzzing, generated from an operation's JSON Schema (itself generated from its zod
// schema): plausible values with hostile ones mixed in at every level.
import fc from 'fast-check';
import { z, type ZodType } from 'zod';

type Schema = Record<string, unknown>;

const nest = (depth: number): unknown => (depth === 0 ? 'bottom' : { n: nest(depth - 1) });
const b64 = (text: string): string => Buffer.from(text).toString('base64url');

/** A JSON number JSON.stringify cannot write (`-0`, `1e999`): `toJson` writes its text as is. */
export class RawNumber {
  constructor(readonly text: string) {}
  toJSON(): string {
    return `@@raw:${this.text}@@`;
  }
}

/** The request text of a body, with each RawNumber written as its own text. */
export function toJson(body: unknown): string | undefined {
  return JSON.stringify(body)?.replace(/"@@raw:([-+.\deE]+)@@"/g, '$1');
}

/** Calendar dates at and past the edges of the accepted years (1900-9999), in and out of the format. */
export const EXTREME_DATES = ['0000-01-01', '1899-12-31', '1900-01-01', '9999-12-31', '10000-01-01', '-000001-12-31', '+010000-01-01', '2026-02-29', '0000-01-01T00:00:00Z'];
/** Months at and past the edges, and the months before any subscription started. */
export const EXTREME_MONTHS = ['0000-01', '1899-12', '1900-01', '1969-12', '1970-01', '9999-12', '10000-01', '-000001-12'];
/** Instants at and past the edges once in UTC, with offsets that cross them. */
export const EXTREME_INSTANTS = [
  '0000-01-01T00:00:00Z', '0000-01-01T00:30:00+01:00', '1899-12-31T23:59:59.999Z', '1900-01-01T00:00:00Z', '1900-01-01T00:30:00+01:00',
  '9999-12-31T23:59:59.999Z', '9999-12-31T23:30:00-01:00', '10000-01-01T00:00:00Z', '-000001-12-31T23:30:00.000Z', '+275760-09-13T00:00:00Z', '0000-01-01',
];
/** Numbers past int32 and safe integers, the largest double, negative zero and infinities as JSON text, and strings that read as numbers. */
export const EXTREME_NUMBERS: unknown[] = [2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53, 2 ** 53 + 2, 1e308, -1e308, new RawNumber('-0'), new RawNumber('1e999'), new RawNumber('-1e999'), new RawNumber('1e-400'), 'NaN', 'Infinity', '-0', '1e308'];
/** Cursors no list issued: not base64url, not JSON, other shapes, and the right shapes holding values a column cannot take. */
export const FORGED_CURSORS = [
  'not base64url!', '====', 'AAAA', '_-_-', 'x'.repeat(500), b64('not json'), b64('{}'), b64('[]'), b64('[null]'), b64('{"__proto__":[1]}'),
  b64('["0000-01-01T00:00:00.000Z","0190c6a2-0000-7000-8000-000000000000"]'), b64('["0000-01-01T00:30:00+01:00","0190c6a2-0000-7000-8000-000000000000"]'),
  b64('["-000001-12-31T23:30:00.000Z","0190c6a2-0000-7000-8000-000000000000"]'), b64('["0000-01-01","page_view"]'), b64('["10000-01-01","page_view"]'),
  b64('[1e308]'), b64('[-1]'), b64('["1"]'), b64('[2147483648,0]'), b64('[0,-1]'), b64('["pg1:x"]'), b64('["pg1:99999999999999999999999:1"]'), b64('[1,2,3]'),
];

/** Random bytes as base64url, and base64url JSON of random values: cursors nobody issued. */
function randomCursor(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b).toString('base64url')),
    fc.jsonValue({ maxDepth: 2 }).map((v) => b64(JSON.stringify(v))),
    fc.constantFrom(...FORGED_CURSORS),
  );
}

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
      ...EXTREME_DATES,
      ...EXTREME_MONTHS,
      ...EXTREME_INSTANTS,
      ...EXTREME_NUMBERS,
      ...FORGED_CURSORS,
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
      // A cursor is a string to the schema: give it the ones that matter (nobody issued them).
      const value = (k: string, s: Schema) => (k === 'cursor' && hostile ? fc.oneof(fromSchema(s, root, uuid, depth + 1, hostile), randomCursor()) : fromSchema(s, root, uuid, depth + 1, hostile));
      const record = fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, value(k, s)])), { requiredKeys: required.filter((k) => k in props) });
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
      // Dates, months and instants: ordinary ones; with hostile values, one in four at or past the edges of the accepted years.
      if (schema.format === 'date-time') return edgy(['2026-03-10T09:00:00Z', '2026-01-01T00:00:00.000Z', '2026-02-01T10:00:00+01:00'], EXTREME_INSTANTS, hostile);
      if (schema.format === 'date') return edgy(['2026-03-10', '2026-01-01', '2025-12-31', '1900-01-01'], EXTREME_DATES, hostile);
      if (MONTH_PATTERN.test(String(schema.pattern ?? ''))) return edgy(['2026-02', '2026-01', '2025-12'], EXTREME_MONTHS, hostile);
      if (schema.format === 'email') return fc.constantFrom('a@example.com', 'ap@acme.example');
      if (typeof schema.pattern === 'string' && /A-Z/.test(schema.pattern)) return fc.constantFrom('GBP', 'EUR', 'GB', 'USD');
      return fc.string({ minLength: Math.min(Number(schema.minLength ?? 1), 16), maxLength: Math.max(Math.min(Number(schema.maxLength ?? 16), 16), Math.min(Number(schema.minLength ?? 1), 16)) });
    case 'integer':
    {
      const min = Math.max(Number(schema.minimum ?? -100), Number.MIN_SAFE_INTEGER);
      const max = Math.min(Number(schema.maximum ?? 10_000_000), Number.MAX_SAFE_INTEGER);
      const ordinary = fc.oneof(fc.integer({ min: Math.max(min, 0), max: Math.max(Math.min(max, 5000), Math.max(min, 0)) }), fc.integer({ min, max }));
      return hostile ? fc.oneof({ weight: 4, arbitrary: ordinary }, { weight: 1, arbitrary: fc.constantFrom(...EXTREME_NUMBERS) }) : ordinary;
    }
    case 'number': {
      const ordinary = fc.double({ noNaN: true, noDefaultInfinity: true });
      return hostile ? fc.oneof({ weight: 4, arbitrary: ordinary }, { weight: 1, arbitrary: fc.constantFrom(...EXTREME_NUMBERS) }) : ordinary;
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return hostileValue();
  }
}

const MONTH_PATTERN = /^\^\\d\{4\}-\(0\[1-9\]\|1\[0-2\]\)\$$/;

// Ordinary values; with hostile values, one in four from the extremes.
function edgy(ordinary: string[], extremes: string[], hostile: 0 | 1): fc.Arbitrary<string> {
  return hostile ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ordinary) }, { weight: 1, arbitrary: fc.constantFrom(...extremes) }) : fc.constantFrom(...ordinary);
}

/** What a field holds, for the values aimed at it. */
export type FieldKind = 'date' | 'month' | 'instant' | 'number' | 'cursor';

/** The extreme values of each kind of field. */
export const EXTREMES: Record<FieldKind, unknown[]> = { date: EXTREME_DATES, month: EXTREME_MONTHS, instant: EXTREME_INSTANTS, number: EXTREME_NUMBERS, cursor: FORGED_CURSORS };

/** Every date, month, instant, number and cursor field of a request schema, by path (an array's first item stands for all). */
export function extremeTargets(request: ZodType): { path: (string | number)[]; kind: FieldKind }[] {
  const root = z.toJSONSchema(request, { io: 'input', unrepresentable: 'any' }) as Schema;
  const found = new Map<string, { path: (string | number)[]; kind: FieldKind }>();
  const walk = (input: Schema, path: (string | number)[], depth: number): void => {
    if (depth > 6) return;
    const schema = resolve(input, root);
    const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (alternatives?.length) return alternatives.forEach((s) => walk(s, path, depth + 1));
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type];
    const add = (kind: FieldKind) => found.set(`${path.join('.')}:${kind}`, { path, kind });
    if (path.at(-1) === 'cursor') add('cursor');
    else if (schema.format === 'date-time') add('instant');
    else if (schema.format === 'date') add('date');
    else if (MONTH_PATTERN.test(String(schema.pattern ?? ''))) add('month');
    else if (types.includes('integer') || types.includes('number')) add('number');
    if (types.includes('object')) for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) walk(s, [...path, k], depth + 1);
    if (types.includes('array')) walk((schema.items ?? {}) as Schema, [...path, 0], depth + 1);
  };
  walk(root, [], 0);
  return [...found.values()];
}

/** Ordinary bodies of a request schema (no hostile value, no cursor), with every other optional field present when `full`. */
export function plausibleBodies(request: ZodType, ids: string[], full: boolean): fc.Arbitrary<unknown> {
  const root = z.toJSONSchema(request, { io: 'input', unrepresentable: 'any' }) as Schema;
  // Every object of the schema with all its properties required (`full`) and no cursor (a made-up one is refused whatever else the body holds).
  const shaped = JSON.parse(JSON.stringify(root, (k, v: unknown) => {
    if (k === 'required' || typeof v !== 'object' || v === null || Array.isArray(v) || !('properties' in v)) return v;
    const { cursor: _cursor, ...properties } = (v as { properties: Record<string, unknown> }).properties;
    const required = full ? Object.keys(properties) : ((v as { required?: string[] }).required ?? []).filter((p) => p !== 'cursor');
    return { ...v, properties, required };
  })) as Schema;
  return fromSchema(shaped, shaped, fc.oneof(fc.constantFrom(...ids), fc.uuid()), 0, 0);
}

/** `body` with `value` at `path`, making the objects and arrays on the way. */
export function withValueAt(body: unknown, path: (string | number)[], value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (typeof head === 'number') {
    const items = Array.isArray(body) ? [...(body as unknown[])] : [];
    items[head] = withValueAt(items[head], rest, value);
    return items;
  }
  const out: Record<string, unknown> = typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...(body as Record<string, unknown>) } : {};
  out[head] = withValueAt(out[head], rest, value);
  return out;
}
