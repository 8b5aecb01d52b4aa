// The core OpenAPI document against the spec's endpoint tables: every operation the spec lists is served under
// its exact path, with the spec's request, success and error type names and its area's tag.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startService, type TestService } from '../support/app.ts';
import { fetchOpenApi, type OpenApiDoc } from '../support/openapi.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The copy of the spec the project builds against (docs/spec), and the shared original beside the repository when present. */
const VENDORED = path.join(repo, 'docs/spec/platform-service-interface.md');
const SHARED = path.join(repo, '../shared/spec/platform-service-interface.md');

/** The spec's eight declared tags, and the tags its operations carry. */
const DECLARED_TAGS = ['Authentication', 'Lookup', 'Ingest', 'Tier1', 'Uploads', 'Orders', 'Integrations', 'OpenBase'];

/** One row of a spec endpoint table. */
interface SpecRow {
  id: string;
  request: string;
  success: string;
  error: string;
}

/** The rows of the core API's endpoint tables (from "## Endpoints" up to the integrations API). */
export function specRows(markdown: string): SpecRow[] {
  const start = markdown.indexOf('## Endpoints');
  const end = markdown.indexOf('### Integrations API');
  return markdown
    .slice(start, end)
    .split('\n')
    .filter((l) => /^\| [a-z][a-z0-9-]*(\.[a-z0-9-]+)+ \|/.test(l))
    .map((l) => {
      const [id = '', request = '', success = '', error = ''] = l.split('|').slice(1, 5).map((c) => c.trim());
      return { id, request, success, error };
    });
}

/** The area tag the spec gives an operation. */
function tagOf(id: string): string {
  if (id.startsWith('analytics.')) return 'analytics';
  if (id.startsWith('assemblies.')) return 'tier1';
  if (id.startsWith('async-imports.')) return 'Ingest';
  return 'Billing';
}

describe('the core API against the spec\'s endpoint tables', () => {
  let svc: TestService;
  let doc: OpenApiDoc;
  const rows = specRows(fs.readFileSync(VENDORED, 'utf8'));
  before(async () => {
    svc = await startService('pglite');
    doc = await fetchOpenApi(`${svc.url}/api/v1/openapi.json`);
  });
  after(async () => svc?.close());

  it('builds against the shared spec as it is now', function () {
    if (!fs.existsSync(SHARED)) {
      console.log(`      (no ${SHARED} beside this clone: checked the vendored copy only)`);
      expect(rows.length).to.equal(69);
      return;
    }
    expect(fs.readFileSync(VENDORED, 'utf8'), 'docs/spec is out of date: copy ../shared/spec again').to.equal(fs.readFileSync(SHARED, 'utf8'));
    expect(rows.length).to.equal(69);
  });

  it('declares the spec\'s eight tags', () => {
    expect(doc.tags.map((t) => t.name)).to.include.members(DECLARED_TAGS);
    for (const t of doc.tags) expect(t.description, t.name).to.be.a('string').and.not.equal('');
  });

  it('serves every operation of the spec', () => {
    const served = new Set(Object.keys(doc.paths).map((p) => p.slice(1)));
    expect(rows.filter((r) => !served.has(r.id)).map((r) => r.id), 'spec operations missing from the service').to.deep.equal([]);
  });

  it('uses the spec\'s request, success and error type names and area tags', () => {
    const ref = (schema: { $ref?: string } | undefined) => schema?.$ref?.replace('#/components/schemas/', '');
    const checked: string[] = [];
    for (const row of rows) {
      const post = doc.paths[`/${row.id}`]?.post;
      if (!post) continue;
      checked.push(row.id);
      expect(post.tags, row.id).to.include(tagOf(row.id));
      // The one row whose types the spec gives only as "the pattern above": insert's names with Remove.
      const pattern = row.request.startsWith('(request, response');
      const request = pattern ? 'billing.ProductEntitlementsRemoveRequest' : row.request.startsWith('uuid.Uuid') ? 'uuid.Uuid' : row.request.startsWith('none') ? null : row.request;
      const error = pattern ? 'billing.ProductEntitlementsRemoveError' : row.error;
      const success = pattern ? 'empty' : row.success;
      if (request === null) expect(post.requestBody, row.id).to.equal(undefined);
      else expect(ref(post.requestBody?.content['application/json']?.schema), `${row.id} request`).to.equal(request);
      expect(ref(post.responses.default?.content['application/json']?.schema), `${row.id} error`).to.equal(error);
      const ok = post.responses['200']?.content ?? {};
      const stream = /^text\/event-stream of (\S+)$/.exec(success);
      const list = /^(Page|Array) of (\S+)$/.exec(success);
      if (stream) expect(ref(ok['text/event-stream']?.schema), `${row.id} events`).to.equal(stream[1]);
      else if (success === 'empty') {
        const body = doc.components.schemas[ref(ok['application/json']?.schema) ?? ''];
        expect(body, row.id).to.include({ type: 'object' });
        expect(Object.keys(body?.properties ?? {}), `${row.id} empty body`).to.deep.equal([]);
      } else if (list) {
        const body = doc.components.schemas[ref(ok['application/json']?.schema) ?? ''];
        const items = list[1] === 'Page' ? body?.properties?.items : body;
        if (list[1] === 'Page') expect(body?.required, `${row.id} page`).to.include.members(['items', 'pagination']);
        expect(items?.type, `${row.id} ${list[1]}`).to.equal('array');
        expect(ref(items?.items), `${row.id} items`).to.equal(list[2]);
      } else expect(ref(ok['application/json']?.schema), `${row.id} success`).to.equal(success);
    }
    expect(checked.length).to.equal(rows.length);
  });
});
