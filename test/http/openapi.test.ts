// The OpenAPI 3.1.0 document and the /docs reference are generated from the registry and cover every operation.
import { assert, expect } from 'chai';
import { startService, type TestService } from '../support/app.ts';
import { fetchOpenApi, type OpenApiDoc, type OpenApiSchema } from '../support/openapi.ts';

const SPEC_TAGS = ['Authentication', 'Lookup', 'Ingest', 'Tier1', 'Uploads', 'Orders', 'Integrations', 'OpenBase', 'analytics', 'tier1', 'Billing'];

describe('OpenAPI document and /docs', () => {
  let svc: TestService;
  let doc: OpenApiDoc;
  before(async () => {
    svc = await startService('pglite');
    doc = await fetchOpenApi(`${svc.url}/api/v1/openapi.json`);
  });
  after(async () => svc?.close());

  it('is OpenAPI 3.1.0 titled core-server, version 1.0.0, with the spec\'s tags', () => {
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.info).to.include({ title: 'core-server', version: '1.0.0' });
    expect(doc.servers[0]?.url).to.match(/\/api\/v1$/);
    for (const t of doc.tags) expect(SPEC_TAGS).to.include(t.name);
  });

  it('always declares the spec\'s eight tags, each with a description, and every tag its operations carry', () => {
    const declared = doc.tags.map((t) => t.name);
    expect(declared.slice(0, 8)).to.deep.equal(['Authentication', 'Lookup', 'Ingest', 'Tier1', 'Uploads', 'Orders', 'Integrations', 'OpenBase']);
    expect(new Set(declared).size).to.equal(declared.length);
    for (const t of doc.tags) expect(t.description, t.name).to.be.a('string').and.have.length.greaterThan(10);
    const carried = new Set(Object.values(doc.paths).flatMap((p) => p.post.tags));
    for (const t of carried) expect(declared, `operation tag ${t}`).to.include(t);
    expect(declared).to.include('Billing');
  });

  it('has every registered core operation with its request, response and named error schema', () => {
    const ops = svc.app.registry.list('core');
    expect(ops.length).to.be.greaterThan(5);
    expect(Object.keys(doc.paths).sort()).to.deep.equal(ops.map((o) => `/${o.id}`).sort());
    const schemas = doc.components.schemas;
    const resolve = (ref: string | undefined): OpenApiSchema => {
      expect(ref).to.match(/^#\/components\/schemas\//);
      const s = schemas[(ref ?? '').replace('#/components/schemas/', '')];
      if (s === undefined) expect.fail(`${ref} is not in components.schemas`);
      expect(s, ref).to.be.an('object');
      return s;
    };
    for (const op of ops) {
      const post = doc.paths[`/${op.id}`]?.post;
      assert.exists(post, op.id);
      expect(post.operationId).to.equal(op.id);
      expect(post.summary).to.be.a('string').and.not.equal('');
      expect(post.tags).to.be.an('array').with.length.greaterThan(0);
      for (const t of post.tags) expect(SPEC_TAGS, `${op.id} tag ${t}`).to.include(t);
      if (op.request) resolve(post.requestBody?.content['application/json']?.schema.$ref);
      else expect(post.requestBody).to.equal(undefined);
      // Streams answer text/event-stream (each event's data is the schema), everything else JSON.
      const success = post.responses['200']?.content ?? {};
      expect(Object.keys(success), op.id).to.deep.equal([op.kind === 'stream' ? 'text/event-stream' : 'application/json']);
      resolve((success['application/json'] ?? success['text/event-stream'])?.schema.$ref);
      const errRef = post.responses.default?.content['application/json']?.schema.$ref;
      expect(errRef).to.equal(`#/components/schemas/${op.error}`);
      const err = resolve(errRef);
      expect(err.required).to.include.members(['type', 'code', 'message', 'request_id']);
      expect(err.properties?.code?.enum).to.include.members([...op.errors, 'invalid_request']);
      if (op.access !== 'public') expect(post.security).to.deep.equal([{ bearerAuth: [] }]);
    }
  });

  it('resolves every $ref inside the document', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).to.be.greaterThan(10);
    for (const ref of refs) {
      expect(ref).to.match(/^#\/components\/schemas\/[^#/]+$/);
      expect(doc.components.schemas[ref.slice('#/components/schemas/'.length)], ref).to.be.an('object');
    }
  });

  it('names schemas as the spec does', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names).to.include.members(['billing.CustomerDetailItem', 'billing.CustomerCreateRequest', 'billing.CustomerInsertError', 'billing.NoteInsertRequest', 'billing.NoteInsertError', 'uuid.Uuid']);
    expect(names.filter((n) => /^(schema\d*|__schema\d+)$/.test(n)), 'anonymous top-level schemas').to.deep.equal([]);
  });

  it('/docs lists every operation', async () => {
    const res = await fetch(`${svc.url}/docs`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.contain('text/html');
    const html = await res.text();
    for (const op of svc.app.registry.list('core')) expect(html, op.id).to.contain(`POST /api/v1/${op.id}`);
    expect(html).to.contain('/api/v1/openapi.json');
  });
});
