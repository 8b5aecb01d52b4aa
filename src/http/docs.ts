// The browsable API reference at /docs, rendered on the server from the generated OpenAPI documents.
import type { Registry } from '../contract/registry.ts';
import { openApiDocument } from './openapi.ts';
import { html, join, markup } from './pages/html.ts';
import { installGuideHtml } from './pages/install-guide.ts';

interface OperationDoc {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  requestBody?: { content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }>;
}

let cached: string | undefined;

/** HTML of the reference: both surfaces, operations grouped by tag, schemas expandable. */
export function docsPage(registry: Registry): string {
  if (cached) return cached;
  const sections = (['core', 'integrations'] as const).map((surface) => {
    const doc = openApiDocument(registry.list(surface), { surface, title: '', serverUrl: '' }) as {
      paths: Record<string, { post: OperationDoc }>;
      components: { schemas: Record<string, unknown> };
      info: { description: string };
    };
    const prefix = surface === 'core' ? '/api/v1/' : '/api/2026-01/';
    const byTag = new Map<string, OperationDoc[]>();
    for (const { post } of Object.values(doc.paths)) {
      const tag = post.tags[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), post]);
    }
    const schema = (ref: string | undefined) => {
      if (!ref) return html``;
      const id = ref.replace('#/components/schemas/', '');
      return html`<details><summary><code>${id}</code></summary><pre>${JSON.stringify(doc.components.schemas[id], null, 2)}</pre></details>`;
    };
    const ops = [...byTag.entries()]
      .map(([tag, list]) => html`<h3>${tag}</h3>${list.map((op) => html`
        <article id="${op.operationId}">
          <h4><code>POST ${prefix}${op.operationId}</code></h4>
          <p>${op.summary}</p>
          <p class="muted">${join(op.description.split('\n\n'), html`<br>`)}</p>
          ${op.requestBody ? html`<p>Request: ${schema(Object.values(op.requestBody.content)[0]?.schema.$ref)}</p>` : html`<p>Request: no body.</p>`}
          <p>Response: ${schema(Object.values(op.responses['200']?.content ?? {})[0]?.schema.$ref)}</p>
          <p>Error: ${schema(Object.values(op.responses['default']?.content ?? {})[0]?.schema.$ref)}</p>
        </article>`)}`);
    return html`<section><h2>${surface === 'core' ? 'Core API' : 'Integrations API'}</h2>
      <p>${doc.info.description}</p>
      <p>OpenAPI 3.1 document: <a href="${prefix}openapi.json">${prefix}openapi.json</a></p>${surface === 'integrations' ? installGuideHtml() : ''}${ops}</section>`;
  });
  cached = markup(html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>core-server API reference</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;line-height:1.45}code,pre{font-family:ui-monospace,monospace}pre{background:#f5f5f5;padding:.5rem;overflow:auto}article{border-top:1px solid #ddd;padding:.25rem 0}.muted{color:#555}</style>
</head><body><h1>core-server API reference</h1>
<p>Errors share one shape everywhere: <code>{ type, code, message, issues?, request_id }</code>. Lists are <code>{ items, pagination: null | { cursor } }</code>; pass <code>cursor</code> back for the next page. Money is <code>{ amount: integer minor units, currency }</code>.</p>
${sections}</body></html>`);
  return cached;
}
