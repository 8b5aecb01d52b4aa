// /docs: the API reference (Scalar's standalone bundle, served from node_modules: a table of contents by tag, search,
// schemas as fields, the examples, a try-it console), and beside it /docs/guide, the integration guide and every
// operation rendered on the server (no script needed).
// Scalar over Redoc: Redoc's open-source bundle has no try-it console; Scalar's has one, with a bearer-token field.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type express from 'express';
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

/** The reference's scripts: Scalar's bundle (its package exports only module entries, so find the folder through one) and ours that starts it. */
const ASSETS: Record<string, () => string> = {
  'scalar.js': () => path.join(path.dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')), 'browser', 'standalone.js'),
  'reference.js': () => path.join(import.meta.dirname, 'pages', 'docs', 'reference.js'),
};

/** The page that loads the reference: two scripts of this origin, no inline code. */
const REFERENCE_PAGE = markup(html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>core-server API reference</title>
<style>.guide{font-family:system-ui,sans-serif;padding:.4rem 1rem;border-bottom:1px solid #ddd;font-size:.9rem}</style>
</head><body><p class="guide">Integration guide, conventions and a plain list of every operation: <a href="/docs/guide">/docs/guide</a> · OpenAPI 3.1: <a href="/api/v1/openapi.json">core</a>, <a href="/api/2026-01/openapi.json">integrations</a> · Try it: sign in with <code>auth.sessions.insert</code>, then paste the token under Authentication.</p>
<div id="reference"></div>
<script src="/docs/assets/scalar.js"></script>
<script src="/docs/assets/reference.js"></script>
</body></html>`);

/** Mounts /docs, /docs/guide and the reference's scripts (read and gzipped once, cached by browsers for an hour). */
export function mountDocs(app: express.Express, registry: Registry): void {
  app.get('/docs', (_req, res) => {
    res.type('html').send(REFERENCE_PAGE);
  });
  app.get('/docs/guide', (_req, res) => {
    res.type('html').send(guidePage(registry));
  });
  const cache = new Map<string, { plain: Buffer; gzip: Buffer }>();
  app.get('/docs/assets/:name', (req, res) => {
    const name = String(req.params.name);
    const file = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!file) return void res.status(404).type('text').send('Not found');
    let body = cache.get(name);
    if (!body) {
      const plain = readFileSync(file());
      body = { plain, gzip: gzipSync(plain) };
      cache.set(name, body);
    }
    const gzip = req.acceptsEncodings('gzip') === 'gzip';
    res.set({ 'Cache-Control': 'public, max-age=3600', 'Cross-Origin-Resource-Policy': 'same-origin', Vary: 'Accept-Encoding', ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) });
    res.type('text/javascript; charset=utf-8').send(gzip ? body.gzip : body.plain);
  });
}

let cached: string | undefined;

/** HTML of the guide: conventions, the integration guide, and both surfaces' operations grouped by tag, schemas expandable. */
function guidePage(registry: Registry): string {
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
<title>core-server integration guide</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;line-height:1.45}code,pre{font-family:ui-monospace,monospace}pre{background:#f5f5f5;padding:.5rem;overflow:auto}article{border-top:1px solid #ddd;padding:.25rem 0}.muted{color:#555}</style>
</head><body><h1>core-server integration guide</h1>
<p>The browsable reference, with search and a try-it console: <a href="/docs">/docs</a>.</p>
<p>Errors share one shape everywhere: <code>{ type, code, message, issues?, request_id }</code>. Lists are <code>{ items, pagination: null | { cursor } }</code>; pass <code>cursor</code> back for the next page. Money is <code>{ amount: integer minor units, currency }</code>.</p>
${sections}</body></html>`);
  return cached;
}
