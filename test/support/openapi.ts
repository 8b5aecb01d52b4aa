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
  content: Record<string, { schema: OpenApiSchema }>;
}

/** One operation (every path has only `post`). */
export interface OpenApiOperation {
  operationId: string;
  summary: string;
  tags: string[];
  security?: unknown;
  requestBody?: OpenApiContent;
  responses: Record<string, OpenApiContent>;
}

/** A served OpenAPI 3.1 document. */
export interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  servers: { url: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, { post: OpenApiOperation }>;
  components: { schemas: Record<string, OpenApiSchema> };
}

/** Fetches and reads the document at `url`. */
export async function fetchOpenApi(url: string): Promise<OpenApiDoc> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
  return (await res.json()) as OpenApiDoc;
}
