// fast-check arbitraries derived from zod 4 schemas, for the subset our event schemas use. Every value generated
// passes its schema (filtered through safeParse); a schema shape this file does not know throws, so a new kind of
// field is never silently left out of a property test.
import fc from 'fast-check';
import { z } from 'zod';

/** How some kinds of values are drawn. */
export interface ZodArbitraryOptions {
  /** Values of `z.uuid()` / `z.guid()` fields (a small shared pool makes ids of different events meet). */
  uuid?: fc.Arbitrary<string>;
  /** Longest array and record drawn where the schema sets no smaller bound (default 4). */
  maxItems?: number;
}

/** A schema shape (or check) zodArbitrary cannot generate values for. */
export class UnsupportedSchemaError extends Error {
  constructor(
    readonly path: string,
    readonly what: string,
  ) {
    super(`zodArbitrary: unsupported ${what} at ${path}`);
  }
}

/** Values that pass `schema` (its input side: what is stored), edges included (years 0000 and 9999, extreme numbers, empty and long text, unicode). */
export function zodArbitrary<T extends z.ZodType>(schema: T, opts: ZodArbitraryOptions = {}): fc.Arbitrary<z.input<T>> {
  return node(schema, opts, '$').filter((v): v is z.input<T> => schema.safeParse(v).success);
}

/** Instants at and past the edges a schema may draw its bounds at. */
export const EDGE_INSTANTS = [
  '0000-01-01T00:00:00Z',
  '0000-01-01T00:30:00+01:00',
  '0001-01-01T00:00:00.000Z',
  '1899-12-31T23:59:59.999Z',
  '1900-01-01T00:00:00.000Z',
  '1969-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00.000Z',
  '2024-02-29T23:59:59.999Z',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59Z',
  '9999-12-31T23:30:00-01:00',
];

/** Calendar dates at and past the edges. */
export const EDGE_DATES = ['0000-01-01', '0001-01-01', '1899-12-31', '1900-01-01', '1970-01-01', '2024-02-29', '9999-12-31'];

/** Text no field should trip on: empty, blank, accents, CJK, emoji sequences, right-to-left override, SQL and HTML. */
const EDGE_TEXT = ['', ' ', 'Zoë Ørsted', '東京都', '👩‍👩‍👧‍👦', '\u202eevil', "O'Brien'); drop table es_events; --", '<b>bold</b>', 'a\nb\tc', '%s%n'];

const FIRST = new Date('0000-01-01T00:00:00.000Z');
const LAST = new Date('9999-12-31T23:59:59.999Z');

function node(schema: z.core.$ZodType, opts: ZodArbitraryOptions, path: string): fc.Arbitrary<unknown> {
  const leaf = (arb: fc.Arbitrary<unknown>) => arb.filter((v) => z.safeParse(schema, v).success);
  if (schema instanceof z.core.$ZodString) return leaf(stringArb(schema, opts, path));
  if (schema instanceof z.core.$ZodNumber) return leaf(numberArb(schema, path));
  if (schema instanceof z.core.$ZodBigInt) return leaf(bigintArb(schema, path));
  if (schema instanceof z.core.$ZodBoolean) return fc.boolean();
  if (schema instanceof z.core.$ZodNull) return fc.constant(null);
  if (schema instanceof z.core.$ZodLiteral) return fc.constantFrom(...schema._zod.def.values);
  if (schema instanceof z.core.$ZodEnum) return fc.constantFrom(...Object.values(schema._zod.def.entries));
  if (schema instanceof z.core.$ZodOptional) return fc.option(node(schema._zod.def.innerType, opts, path), { nil: undefined });
  if (schema instanceof z.core.$ZodNullable) return fc.option(node(schema._zod.def.innerType, opts, path), { nil: null });
  if (schema instanceof z.core.$ZodDefault) return fc.option(node(schema._zod.def.innerType, opts, path), { nil: undefined });
  if (schema instanceof z.core.$ZodReadonly) return node(schema._zod.def.innerType, opts, path);
  if (schema instanceof z.core.$ZodObject) return refined(schema, objectArb(schema, opts, path), path);
  if (schema instanceof z.core.$ZodArray) return refined(schema, arrayArb(schema, opts, path), path);
  if (schema instanceof z.core.$ZodRecord) return refined(schema, recordArb(schema, opts, path), path);
  if (schema instanceof z.core.$ZodUnion) return fc.oneof(...schema._zod.def.options.map((o, i) => node(o, opts, `${path}|${i}`)));
  if (schema instanceof z.core.$ZodTuple) return fc.tuple(...schema._zod.def.items.map((s, i) => node(s, opts, `${path}[${i}]`)));
  if (schema instanceof z.core.$ZodPipe) {
    // A transform's input is what is stored; a pipe whose input is itself a transform (preprocess) is not generated.
    if (schema._zod.def.in instanceof z.core.$ZodTransform) throw new UnsupportedSchemaError(path, 'preprocess');
    return leaf(node(schema._zod.def.in, opts, path));
  }
  throw new UnsupportedSchemaError(path, `schema type ${schema._zod.def.type}`);
}

// Container checks: refinements only (filtered by the caller's safeParse); anything else is unknown here.
function refined(schema: z.core.$ZodType, arb: fc.Arbitrary<unknown>, path: string): fc.Arbitrary<unknown> {
  const checks = (schema._zod.def.checks ?? []).filter((c) => !(schema instanceof z.core.$ZodArray && (c instanceof z.core.$ZodCheckMinLength || c instanceof z.core.$ZodCheckMaxLength || c instanceof z.core.$ZodCheckLengthEquals)));
  for (const c of checks) if (!(c instanceof z.core.$ZodCustom)) throw new UnsupportedSchemaError(path, `check ${c._zod.def.check}`);
  return checks.length ? arb.filter((v) => z.safeParse(schema, v).success) : arb;
}

function objectArb(schema: z.core.$ZodObject, opts: ZodArbitraryOptions, path: string): fc.Arbitrary<unknown> {
  const shape = schema._zod.def.shape;
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    const optional = field instanceof z.core.$ZodOptional || field instanceof z.core.$ZodDefault;
    // An optional key is absent or present with a value (stored JSON has no `undefined`).
    model[key] = optional ? node(field._zod.def.innerType, opts, `${path}.${key}`) : node(field, opts, `${path}.${key}`);
    if (!optional) required.push(key);
  }
  return fc.record(model, { requiredKeys: required });
}

function lengthBounds(checks: readonly z.core.$ZodCheck<never>[] | undefined): { min: number; max: number } {
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const c of checks ?? []) {
    if (c instanceof z.core.$ZodCheckMinLength) min = Math.max(min, c._zod.def.minimum);
    else if (c instanceof z.core.$ZodCheckMaxLength) max = Math.min(max, c._zod.def.maximum);
    else if (c instanceof z.core.$ZodCheckLengthEquals) [min, max] = [c._zod.def.length, c._zod.def.length];
  }
  return { min, max };
}

function arrayArb(schema: z.core.$ZodArray, opts: ZodArbitraryOptions, path: string): fc.Arbitrary<unknown> {
  const { min, max } = lengthBounds(schema._zod.def.checks);
  return fc.array(node(schema._zod.def.element, opts, `${path}[]`), { minLength: min, maxLength: Math.max(min, Math.min(max, opts.maxItems ?? 4)) });
}

function recordArb(schema: z.core.$ZodRecord, opts: ZodArbitraryOptions, path: string): fc.Arbitrary<unknown> {
  const { keyType, valueType } = schema._zod.def;
  const value = node(valueType, opts, `${path}{}`);
  // A record keyed by an enum has every key (zod 4).
  if (keyType instanceof z.core.$ZodEnum) return fc.record(Object.fromEntries(Object.values(keyType._zod.def.entries).map((k) => [String(k), value])));
  const key = node(keyType, opts, `${path}{key}`).filter((k): k is string => typeof k === 'string');
  return fc.dictionary(key, value, { maxKeys: opts.maxItems ?? 4 });
}

function stringArb(schema: z.core.$ZodString, opts: ZodArbitraryOptions, path: string): fc.Arbitrary<string> {
  const { min, max } = lengthBounds(schema._zod.def.checks);
  let pattern: RegExp | undefined;
  for (const c of schema._zod.def.checks ?? []) {
    if (c instanceof z.core.$ZodCheckMinLength || c instanceof z.core.$ZodCheckMaxLength || c instanceof z.core.$ZodCheckLengthEquals) continue;
    if (c instanceof z.core.$ZodCheckRegex) pattern ??= c._zod.def.pattern;
    else if (c instanceof z.core.$ZodCheckOverwrite || c instanceof z.core.$ZodCustom) continue; // trim/case and refinements: the filter holds
    else throw new UnsupportedSchemaError(path, `string check ${c._zod.def.check}${c instanceof z.core.$ZodCheckStringFormat ? ` (${c._zod.def.format})` : ''}`);
  }
  const format = schema instanceof z.core.$ZodStringFormat ? schema._zod.def.format : undefined;
  switch (format) {
    case undefined:
      return pattern ? fc.stringMatching(pattern) : text(min, max);
    case 'uuid':
    case 'guid':
      return opts.uuid ?? fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'date':
      return fc.oneof(fc.constantFrom(...EDGE_DATES), fc.date({ min: FIRST, max: LAST, noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)));
    case 'datetime':
      if (!(schema instanceof z.core.$ZodISODateTime)) break;
      return instantArb(schema._zod.def);
  }
  throw new UnsupportedSchemaError(path, `string format ${format}`);
}

// RFC 3339 instants over years 0000-9999 in the forms the schema may accept (precision, offsets), with the edges.
function instantArb(def: z.core.$ZodISODateTimeDef): fc.Arbitrary<string> {
  const offsets = def.offset ? ['Z', '+00:00', '+01:00', '-01:00', '+14:00', '-12:00', '+05:30'] : ['Z'];
  const drawn = fc.tuple(fc.date({ min: FIRST, max: LAST, noInvalidDate: true }), fc.constantFrom(-1, 0, 3, 6), fc.constantFrom(...offsets)).map(([d, digits, offset]) => {
    const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ for years 0000-9999
    const seconds = digits < 0 ? iso.slice(0, 16) : iso.slice(0, 19);
    const fraction = digits <= 0 ? '' : `.${iso.slice(20, 23)}${'0'.repeat(Math.max(0, digits - 3))}`;
    return `${seconds}${fraction}${offset}`;
  });
  return fc.oneof(fc.constantFrom(...EDGE_INSTANTS), drawn);
}

// Text of `min`..`max` UTF-16 units (zod counts `.length`), well-formed and without NUL: the event store (jsonb) holds no other.
function text(min: number, max: number): fc.Arbitrary<string> {
  const cap = Math.min(max, Math.max(min, 40));
  const long = Number.isFinite(max) && max <= 100_000 ? ['x'.repeat(max), 'é'.repeat(max)] : ['x'.repeat(10_000)];
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength: cap }) },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: min, maxLength: cap }) },
      { weight: 1, arbitrary: fc.constantFrom(...EDGE_TEXT, ...long, 'x'.repeat(min)) },
    )
    .filter((s) => s.length >= min && s.length <= max && !s.includes('\u0000'));
}

const FORMAT_BOUNDS: Record<string, [number, number]> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  float32: [-3.4028234663852886e38, 3.4028234663852886e38],
  float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
};

function numberArb(schema: z.core.$ZodNumber, path: string): fc.Arbitrary<number> {
  let min = -Number.MAX_VALUE;
  let max = Number.MAX_VALUE;
  let minExcluded = false;
  let maxExcluded = false;
  let integer = false;
  const format = (f: string) => {
    const bounds = FORMAT_BOUNDS[f];
    if (!bounds) throw new UnsupportedSchemaError(path, `number format ${f}`);
    [min, max] = [Math.max(min, bounds[0]), Math.min(max, bounds[1])];
    integer ||= f !== 'float32' && f !== 'float64';
  };
  if (schema instanceof z.core.$ZodNumberFormat) format(schema._zod.def.format);
  for (const c of schema._zod.def.checks ?? []) {
    if (c instanceof z.core.$ZodCheckGreaterThan) {
      const v = Number(c._zod.def.value);
      if (v >= min) [min, minExcluded] = [v, !c._zod.def.inclusive];
    } else if (c instanceof z.core.$ZodCheckLessThan) {
      const v = Number(c._zod.def.value);
      if (v <= max) [max, maxExcluded] = [v, !c._zod.def.inclusive];
    } else if (c instanceof z.core.$ZodCheckNumberFormat) format(c._zod.def.format);
    else if (c instanceof z.core.$ZodCheckMultipleOf || c instanceof z.core.$ZodCustom) continue; // the filter holds
    else throw new UnsupportedSchemaError(path, `number check ${c._zod.def.check}`);
  }
  if (integer) {
    const lo = Math.ceil(minExcluded ? min + 1 : min);
    const hi = Math.floor(maxExcluded ? max - 1 : max);
    return fc.oneof(fc.integer({ min: lo, max: hi }), fc.constantFrom(lo, hi, 0, 1, -1));
  }
  return fc.oneof(fc.double({ min, max, minExcluded, maxExcluded, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(min, max, 0, -0, 0.1, 1e-9));
}

function bigintArb(schema: z.core.$ZodBigInt, path: string): fc.Arbitrary<bigint> {
  let min: bigint | undefined;
  let max: bigint | undefined;
  for (const c of schema._zod.def.checks ?? []) {
    if (c instanceof z.core.$ZodCheckGreaterThan) min = bigintOf(c._zod.def.value) + (c._zod.def.inclusive ? 0n : 1n);
    else if (c instanceof z.core.$ZodCheckLessThan) max = bigintOf(c._zod.def.value) - (c._zod.def.inclusive ? 0n : 1n);
    else if (c instanceof z.core.$ZodCustom) continue;
    else throw new UnsupportedSchemaError(path, `bigint check ${c._zod.def.check}`);
  }
  return fc.bigInt({ ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) });
}

const bigintOf = (v: z.core.util.Numeric): bigint => (typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v))));
