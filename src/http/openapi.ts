// OpenAPI 3.1.0 documents generated from the registry: nothing here lists operations by hand.
import { z, type ZodType } from 'zod';
import type { Operation } from '../contract/operation.ts';
import { declaredCodes } from '../contract/check.ts';
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

/** The document's tag list: the spec's eight always on the core document (plus the operation tags in use); only the tags in use elsewhere. */
function declaredTags(surface: 'core' | 'integrations', used: Set<string>): { name: string; description: string }[] {
  const all: Record<string, string> = { ...SPEC_TAGS, ...OPERATION_TAGS };
  const names = surface === 'core' ? [...new Set([...Object.keys(SPEC_TAGS), ...Object.keys(OPERATION_TAGS).filter((t) => used.has(t))])] : Object.keys(all).filter((t) => used.has(t));
  return names.map((name) => ({ name, description: all[name] ?? '' }));
}

/** Builds the OpenAPI document of one surface. */
export function openApiDocument(ops: Operation[], opts: { surface: 'core' | 'integrations'; title: string; serverUrl: string }): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  const idOf = new Map<ZodType, string>();
  const name = (schema: ZodType, fallback: string): string => {
    const known = idOf.get(schema) ?? (z.globalRegistry.get(schema)?.id as string | undefined) ?? fallback;
    if (!idOf.has(schema)) {
      idOf.set(schema, known);
      if (!registry.has(schema)) registry.add(schema, { id: known });
    }
    return known;
  };
  const errorCodes = new Map<string, Set<string>>();
  for (const op of ops) {
    const codes = errorCodes.get(op.error) ?? new Set<string>();
    for (const c of declaredCodes(op)) codes.add(c);
    errorCodes.set(op.error, codes);
  }
  const errorSchemas = new Map<string, ZodType>();
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
    errorSchemas.set(type, schema);
    name(schema, type);
  }

  const paths: Record<string, unknown> = {};
  for (const op of ops) {
    const requestId = op.request ? name(op.request, `${op.id}.Request`) : null;
    const responseId = name(op.response, `${op.id}.Response`);
    const errorSchema = errorSchemas.get(op.error);
    const errorId = errorSchema ? name(errorSchema, op.error) : op.error;
    const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
    paths[`/${op.id}`] = {
      post: {
        operationId: op.id,
        tags: op.tags,
        summary: op.summary,
        description: [op.description, `Access: ${describeAccess(op)}.`, op.entitlement ? `Needs the \`${op.entitlement}\` entitlement in effect for the caller's organization (staff are exempt).` : '', op.write ? 'Send an `Idempotency-Key` header to make retries safe.' : ''].filter(Boolean).join('\n\n'),
        ...(op.kind === 'json' && op.write ? { parameters: [{ name: REASON_HEADER, in: 'header', required: false, description: REASON_DOC, schema: { type: 'string', minLength: 1, maxLength: MAX_REASON * 9 } }] } : {}),
        security: op.access === 'public' ? [] : opts.surface === 'core' ? [{ bearerAuth: [] }] : [{ bearerAuth: [], integrationId: [] }],
        ...(op.requestHeaders?.length ? { parameters: op.requestHeaders.map((h) => ({ name: h, in: 'header', required: false, description: `Recorded as given; null when absent.`, schema: { type: ['string', 'null'] } })) } : {}),
        ...(requestId ? { requestBody: { required: true, content: { 'application/json': { schema: ref(requestId) } } } } : {}),
        responses: {
          '200': op.kind === 'stream'
            ? { description: 'A stream of server-sent events; each `data` line is JSON of this schema.', content: { 'text/event-stream': { schema: ref(responseId) } } }
            : { description: 'Success.', content: { 'application/json': { schema: ref(responseId) } } },
          default: { description: `Error (${op.error}).`, content: { 'application/json': { schema: ref(errorId) } } },
        },
      },
    };
  }
  const converted = z.toJSONSchema(registry, { target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any' });
  const schemas: Record<string, unknown> = {};
  for (const [id, schema] of Object.entries(converted.schemas)) {
    const { $schema: _s, $id: _i, ...rest } = schema as Record<string, unknown>;
    // zod puts named schemas nested in several documents under `__shared.$defs`: make them components of their own.
    if (id === '__shared') Object.assign(schemas, (rest.$defs ?? {}) as Record<string, unknown>);
    else schemas[id] = rest;
  }
  const hoisted = JSON.parse(JSON.stringify(schemas).replaceAll('"#/components/schemas/__shared#/$defs/', '"#/components/schemas/')) as Record<string, unknown>;
  const usedTags = new Set(ops.flatMap((o) => o.tags));
  return {
    openapi: '3.1.0',
    info: {
      title: opts.title,
      version: '1.0.0',
      description: opts.surface === 'core'
        ? 'Core API: every operation is POST /api/v1/<operation_id> with a JSON body. Authenticate with `authorization: Bearer <session token>` (from auth.sessions.insert).'
        : 'Integrations API for installed apps: POST /api/2026-01/<operation>. Authenticate with `Authorization: Bearer <api_key>` and `Svc-Integration-ID: <integration_id>` from integrations.insert.',
    },
    servers: [{ url: opts.serverUrl }],
    tags: declaredTags(opts.surface, usedTags),
    paths,
    components: {
      schemas: hoisted,
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
