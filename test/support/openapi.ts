// The parts of a served OpenAPI document that the document tests read, typed so a misspelt path fails the type-check.

/** A schema object: a reference, or the few keywords the tests look at. */
export interface OpenApiSchema {
  $ref?: string;
  type?: string;
  required?: string[];
  enum?: string[];
  properties?: Record<string, OpenApiSchema>;
  items?: OpenApiSchema;
}

/** A request or response body: its schema by media type. */
interface OpenApiContent {
  content: Record<string, { schema: OpenApiSchema; example?: unknown }>;
}

/** An answer: its body, headers, and (streams) the SSE event names it sends. */
interface OpenApiResponse extends OpenApiContent {
  description: string;
  headers?: Record<string, { $ref?: string }>;
  'x-sse-events'?: Record<string, { description: string }>;
}

/** One operation (every path has only `post`). */
export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters?: { $ref?: string; name?: string }[];
  security?: unknown;
  requestBody?: OpenApiContent;
  responses: Record<string, OpenApiResponse>;
}

/** A served OpenAPI 3.1 document. */
export interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  servers: { url: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, { post: OpenApiOperation }>;
  components: { schemas: Record<string, OpenApiSchema>; parameters?: Record<string, { name: string; in: string }> };
}

/** Fetches and reads the document at `url`. */
export async function fetchOpenApi(url: string): Promise<OpenApiDoc> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
  return (await res.json()) as OpenApiDoc;
}
