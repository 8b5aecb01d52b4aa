// OpenAPI 3.1.0 documents generated from the registry: nothing here lists operations by hand.
import { z, type ZodType } from 'zod';
import type { Operation } from '../contract/operation.ts';
import { declaredCodes } from '../contract/check.ts';
import { COMMON_ERRORS } from '../domain/errors.ts';
import { MAX_REASON, REASON_DOC, REASON_HEADER } from './reason.ts';

/** The tags the interface spec says the API definition declares, with what each groups (the spec gives no purpose for Lookup, Uploads, Orders and OpenBase: said so). */
export const SPEC_TAGS: Record<string, string> = {
  Authentication: 'Signing in and sessions (auth.*), and the installation flow that gives an integration its API key.',
  Lookup: 'Vehicle lookup. Declared by the interface spec, which does not describe it further; no operation carries it yet.',
  Ingest: 'Asynchronous ingest of sellable items (async-imports.*).',
  Tier1: 'Vehicle assembly (HCA) data. Declared by the interface spec; the assembly operations carry the lower-case tier1 tag.',
  Uploads: 'File uploads. Declared by the interface spec, which does not describe it further; no operation carries it yet.',
  Orders: 'Orders. Declared by the interface spec, which does not describe it further; no operation carries it yet.',
  Integrations: 'Third-party applications installed into an organization, and their API keys.',
  OpenBase: 'Declared by the interface spec, which does not state its purpose; no operation carries it yet.',
};

/** The tags operations carry, with what each groups. */
export const OPERATION_TAGS: Record<string, string> = {
  analytics: 'Analytics event logging (analytics.events.insert).',
  tier1: 'Assembly lookup by HCA identifiers, experimental search and the assembly streams (assemblies.*).',
  Ingest: SPEC_TAGS.Ingest ?? '',
  Billing: 'Customers, invoices, payments, credit notes, attachments, catalogue, entitlements, currencies, payment methods and billing configuration (billing.*).',
};

/** What each answered status means, for the response's description (the codes follow). */
const STATUS_TEXT: Record<number, string> = {
  400: 'The request is not valid; nothing was written.',
  401: 'No valid credential.',
  403: 'The caller may not do this.',
  404: 'Not found.',
  409: 'Conflicts with the current state; nothing was written.',
  410: 'Gone.',
  413: 'The request body is larger than 1 MiB.',
  415: 'The request body must be application/json.',
  422: 'The Idempotency-Key was used before with another request.',
  429: 'Too many requests; retry after Retry-After seconds.',
  503: 'Unavailable for now; retry after Retry-After seconds (a write retried with the same Idempotency-Key is applied at most once).',
};

/** Header parameters, declared once as components and referenced by the operations. */
const PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: 'Makes a retry safe: the same key with the same request answers the first answer again (with `Idempotent-Replayed: true`) and writes nothing more; the same key with another request is 422 `idempotency_key_reused`; while the first is still running, 409 `idempotency_key_in_use`.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    example: '7f1c2a9e-order-4411',
  },
  SvcReason: { name: REASON_HEADER, in: 'header', required: false, description: REASON_DOC, schema: { type: 'string', minLength: 1, maxLength: MAX_REASON * 9 }, example: 'Customer%20asked%20by%20phone' },
  LastEventId: {
    name: 'Last-Event-ID',
    in: 'header',
    required: false,
    description: "The SSE `id` of the last event received (browsers' EventSource sends it on reconnect): a stream whose events carry ids resumes after it, and it wins over a `resume_point` of the body.",
    schema: { type: 'string', minLength: 1 },
  },
  XRequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description: 'Your id for this request (1-100 of letters, digits, `_ . : -`), echoed in the answer and in logs; one is made when absent or malformed.',
    schema: { type: 'string', pattern: '^[\\w.:-]{1,100}$' },
  },
} as const;

/** Answer headers, declared once. */
const HEADERS = {
  XRequestId: { description: 'The id of this request (yours when you sent a valid X-Request-Id); every error body carries it too.', schema: { type: 'string' } },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
  IdempotentReplayed: { description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
} as const;

/** The document's tag list: the spec's eight always on the core document (plus the operation tags in use); only the tags in use elsewhere. */
function declaredTags(surface: 'core' | 'integrations', used: Set<string>): { name: string; description: string }[] {
  const all: Record<string, string> = { ...SPEC_TAGS, ...OPERATION_TAGS };
  const names = surface === 'core' ? [...new Set([...Object.keys(SPEC_TAGS), ...Object.keys(OPERATION_TAGS).filter((t) => used.has(t))])] : Object.keys(all).filter((t) => used.has(t));
  return names.map((name) => ({ name, description: all[name] ?? '' }));
}

/** The status of every code an operation may answer, grouped: status -> codes. */
export function errorStatuses(op: Operation): Map<number, string[]> {
  const statuses: Readonly<Record<string, number>> = { ...COMMON_ERRORS, ...op.errors.statuses };
  const out = new Map<number, string[]>();
  for (const code of new Set(declaredCodes(op))) {
    const status = statuses[code] ?? 500;
    out.set(status, [...(out.get(status) ?? []), code]);
  }
  return new Map([...out.entries()].sort(([a], [b]) => a - b));
}

/** A set of named zod schemas converted to JSON Schema components (zod's shared nested schemas hoisted to components of their own). */
function convert(schemas: Map<ZodType, string>, io: 'input' | 'output'): Record<string, Record<string, unknown>> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of schemas) if (!registry.has(schema)) registry.add(schema, { id });
  const converted = z.toJSONSchema(registry, { target: 'draft-2020-12', io, uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any' });
  const out: Record<string, Record<string, unknown>> = {};
  for (const [id, schema] of Object.entries(converted.schemas)) {
    const { $schema: _s, $id: _i, ...rest } = schema as Record<string, unknown>;
    // zod puts named schemas nested in several documents under `__shared.$defs`: make them components of their own.
    if (id === '__shared') Object.assign(out, (rest.$defs ?? {}) as Record<string, Record<string, unknown>>);
    else out[id] = rest;
  }
  return JSON.parse(JSON.stringify(out).replaceAll('"#/components/schemas/__shared#/$defs/', '"#/components/schemas/')) as Record<string, Record<string, unknown>>;
}

/**
 * Request schemas are converted on zod's input side (a field with a default is optional, as a client may omit it),
 * answers on the output side (the field is always there). A named schema whose two sides differ appears twice: its
 * input side as `<name>Input`.
 */
function components(inputs: Map<ZodType, string>, outputs: Map<ZodType, string>): Record<string, unknown> {
  const out = convert(outputs, 'output');
  const input = convert(inputs, 'input');
  const renamed = Object.keys(input).filter((id) => out[id] !== undefined && JSON.stringify(out[id]) !== JSON.stringify(input[id]));
  let text = JSON.stringify(input);
  for (const id of renamed) text = text.replaceAll(`"#/components/schemas/${id}"`, `"#/components/schemas/${id}Input"`);
  const inputSide = JSON.parse(text) as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...out };
  for (const [id, schema] of Object.entries(inputSide)) merged[renamed.includes(id) ? `${id}Input` : id] = schema;
  return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
}

/** Builds the OpenAPI document of one surface. */
export function openApiDocument(ops: Operation[], opts: { surface: 'core' | 'integrations'; title: string; serverUrl: string }): Record<string, unknown> {
  const inputs = new Map<ZodType, string>();
  const outputs = new Map<ZodType, string>();
  const name = (side: Map<ZodType, string>, schema: ZodType, fallback: string): string => {
    const known = side.get(schema) ?? (z.globalRegistry.get(schema)?.id as string | undefined) ?? fallback;
    side.set(schema, known);
    return known;
  };
  const errorCodes = new Map<string, Set<string>>();
  for (const op of ops) {
    const codes = errorCodes.get(op.error) ?? new Set<string>();
    for (const c of declaredCodes(op)) codes.add(c);
    errorCodes.set(op.error, codes);
  }
  for (const [type, codes] of errorCodes) {
    const schema = z
      .object({
        type: z.literal(type).describe('The error type of the operation.'),
        code: z.enum([...codes].sort() as [string, ...string[]]).describe('Stable machine-readable reason.'),
        message: z.string().describe('Human-readable explanation.'),
        issues: z.array(z.object({ path: z.string(), message: z.string() })).optional().describe('Field-level problems of a rejected request (code invalid_request).'),
        request_id: z.string().describe('Quote this when reporting a problem.'),
      })
      .describe(`Error body of ${type}.`);
    name(outputs, schema, type);
  }

  const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
  const paramRef = (id: keyof typeof PARAMETERS) => ({ $ref: `#/components/parameters/${id}` });
  const headerRef = (id: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${id}` });
  const usedParams = new Set<keyof typeof PARAMETERS>(['XRequestId']);
  const paths: Record<string, unknown> = {};
  for (const op of ops) {
    const requestId = op.request ? name(inputs, op.request, `${op.id}.Request`) : null;
    const responseId = name(outputs, op.response, `${op.id}.Response`);
    const ex = op.examples;
    const parameters: unknown[] = [paramRef('XRequestId')];
    const use = (id: keyof typeof PARAMETERS) => (usedParams.add(id), parameters.push(paramRef(id)));
    if (op.write) use('IdempotencyKey');
    if (op.kind === 'json' && op.write) use('SvcReason');
    if (op.kind === 'stream') use('LastEventId');
    for (const h of op.requestHeaders ?? []) parameters.push({ name: h, in: 'header', required: false, description: 'Recorded as given; null when absent.', schema: { type: 'string' } });
    const answerHeaders = { 'X-Request-Id': headerRef('XRequestId') };
    const errors: Record<string, unknown> = {};
    for (const [status, codes] of errorStatuses(op)) {
      if (status >= 500 && status !== 503) continue;
      errors[String(status)] = {
        description: `${STATUS_TEXT[status] ?? 'Error.'} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
        headers: status === 429 || status === 503 ? { ...answerHeaders, 'Retry-After': headerRef('RetryAfter') } : answerHeaders,
        content: { 'application/json': { schema: ref(op.error) } },
      };
    }
    const events = op.kind === 'stream' ? Object.entries(op.events) : [];
    paths[`/${op.id}`] = {
      post: {
        operationId: op.id,
        tags: op.tags,
        summary: op.summary,
        description: [
          op.description,
          events.length ? `Events (SSE \`event\` name: meaning; each \`data\` is JSON of \`${responseId}\`):\n\n${events.map(([e, why]) => `- \`${e}\`: ${why}`).join('\n')}` : '',
          `Access: ${describeAccess(op)}.`,
          op.entitlement ? `Needs the \`${op.entitlement}\` entitlement in effect for the caller's organization (staff are exempt).` : '',
          op.write ? 'Send an `Idempotency-Key` header to make retries safe.' : '',
        ].filter(Boolean).join('\n\n'),
        parameters,
        // Named types the text refers to (ingest.SellableItemRow: an upload's row), so they are components a reader can follow.
        ...(op.mentions?.length ? { 'x-mentions': op.mentions.map((m) => ref(name(inputs, m, `${op.id}.Mentioned`))) } : {}),
        security: op.access === 'public' ? [] : opts.surface === 'core' ? [{ bearerAuth: [] }] : [{ bearerAuth: [], integrationId: [] }],
        ...(requestId ? { requestBody: { required: true, content: { 'application/json': { schema: ref(requestId), ...(ex ? { example: ex.request } : {}) } } } } : {}),
        responses: {
          '200': op.kind === 'stream'
            ? {
                description: `A stream of server-sent events: ${events.map(([e]) => `\`${e}\``).join(', ')}; each \`data\` line is JSON of this schema.`,
                headers: answerHeaders,
                content: { 'text/event-stream': { schema: ref(responseId), ...(ex ? { example: ex.response } : {}) } },
                'x-sse-events': Object.fromEntries(events.map(([e, why]) => [e, { description: why, data: ref(responseId) }])),
              }
            : {
                description: 'Success.',
                headers: op.write ? { ...answerHeaders, 'Idempotent-Replayed': headerRef('IdempotentReplayed') } : answerHeaders,
                content: { 'application/json': { schema: ref(responseId), ...(ex ? { example: ex.response } : {}) } },
              },
          ...errors,
          default: { description: `Any other error (${op.error}): 500 \`internal_error\`.`, headers: answerHeaders, content: { 'application/json': { schema: ref(op.error) } } },
        },
      },
    };
  }
  const usedTags = new Set(ops.flatMap((o) => o.tags));
  const usedHeaders = new Set(JSON.stringify(paths).match(/#\/components\/headers\/\w+/g)?.map((r) => r.split('/').pop()) ?? []);
  return {
    openapi: '3.1.0',
    info: {
      title: opts.title,
      version: '1.0.0',
      description: opts.surface === 'core'
        ? 'Core API: every operation is POST /api/v1/<operation_id> with a JSON body. Authenticate with `authorization: Bearer <session token>` (from auth.sessions.insert).'
        : 'Integrations API for installed apps: POST /api/2026-01/<operation>. Authenticate with `Authorization: Bearer <api_key>` and `Svc-Integration-ID: <integration_id>` from integrations.insert.',
      contact: { name: 'core-server API reference', ...(URL.canParse(opts.serverUrl) ? { url: new URL('/docs', opts.serverUrl).href } : {}) },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: opts.serverUrl, description: opts.surface === 'core' ? 'Core API' : 'Integrations API' }],
    tags: declaredTags(opts.surface, usedTags),
    paths,
    components: {
      schemas: components(inputs, outputs),
      parameters: Object.fromEntries(Object.entries(PARAMETERS).filter(([id]) => usedParams.has(id as keyof typeof PARAMETERS))),
      headers: Object.fromEntries(Object.entries(HEADERS).filter(([id]) => usedHeaders.has(id))),
      securitySchemes: opts.surface === 'core'
        ? { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Session token `svc_sess_...`.' } }
        : {
            bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key `svc_key_...` from integrations.insert.' },
            integrationId: { type: 'apiKey', in: 'header', name: 'Svc-Integration-ID', description: 'The integration_id the key was issued with.' },
          },
    },
  };
}


/** Access rule in words, for documentation. */
export function describeAccess(op: Operation): string {
  const a = op.access;
  if (typeof a === 'object') return a.integration === 'any' ? 'any installed integration' : `integrations with scope ${a.integration.join(' or ')}`;
  return { public: 'public', org_user: 'any signed-in user of an organization', org_admin: 'owners and admins of the organization, and billing staff', billing_staff: 'billing staff', platform_staff: 'platform staff', system: 'the service itself (internal)' }[a];
}
