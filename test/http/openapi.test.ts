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
    const sections = doc.components as unknown as Record<string, Record<string, unknown>>;
    for (const ref of refs) {
      const [, section, id] = /^#\/components\/(schemas|parameters|headers)\/([^#/]+)$/.exec(ref) ?? [];
      expect(section, ref).to.be.a('string');
      expect(sections[section ?? '']?.[id ?? ''], ref).to.be.an('object');
    }
  });

  it('names schemas as the spec does', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names).to.include.members(['billing.CustomerDetailItem', 'billing.CustomerCreateRequest', 'billing.CustomerInsertError', 'billing.NoteInsertRequest', 'billing.NoteInsertError', 'uuid.Uuid']);
    expect(names.filter((n) => /^(schema\d*|__schema\d+)$/.test(n)), 'anonymous top-level schemas').to.deep.equal([]);
  });

  it('types requests on the input side: a field with a default is optional in the request, always there in the answer', () => {
    const schemas = doc.components.schemas;
    expect(schemas['billing.CustomerCreateRequest']?.required).to.not.include('payment_terms_days');
    expect(schemas['billing.CustomerDetailItem']?.required).to.include('payment_terms_days');
    expect(schemas['billing.CustomerListRequest']?.required ?? []).to.not.include('limit');
  });

  it('declares the headers: Idempotency-Key and Svc-Reason on writes, Last-Event-ID on streams, X-Request-Id on every answer, Retry-After on 429 and 503', () => {
    const params = doc.components.parameters ?? {};
    expect(params.IdempotencyKey).to.include({ name: 'Idempotency-Key', in: 'header' });
    expect(params.SvcReason).to.include({ name: 'Svc-Reason', in: 'header' });
    expect(params.LastEventId).to.include({ name: 'Last-Event-ID', in: 'header' });
    for (const op of svc.app.registry.list('core')) {
      const post = doc.paths[`/${op.id}`]?.post;
      const named = (post?.parameters ?? []).map((p) => p.$ref?.split('/').pop());
      expect(named.includes('IdempotencyKey'), `${op.id} Idempotency-Key`).to.equal(op.write === true);
      expect(named.includes('SvcReason'), `${op.id} Svc-Reason`).to.equal(op.kind === 'json' && op.write === true);
      expect(named.includes('LastEventId'), `${op.id} Last-Event-ID`).to.equal(op.kind === 'stream');
      for (const [status, answer] of Object.entries(post?.responses ?? {})) {
        expect(answer.headers?.['X-Request-Id'], `${op.id} ${status}`).to.deep.equal({ $ref: '#/components/headers/XRequestId' });
        if (status === '429' || status === '503') expect(answer.headers?.['Retry-After'], `${op.id} ${status}`).to.deep.equal({ $ref: '#/components/headers/RetryAfter' });
      }
    }
  });

  it('declares each error status an operation answers, with its codes and the operation\'s error type', () => {
    const statuses = (id: string) => Object.keys(doc.paths[`/${id}`]?.post.responses ?? {});
    for (const op of svc.app.registry.list('core')) {
      const post = doc.paths[`/${op.id}`]?.post;
      expect(statuses(op.id), op.id).to.include.members(['200', '400', '401', '503', 'default']);
      for (const [status, answer] of Object.entries(post?.responses ?? {}))
        if (status !== '200') expect(answer.content['application/json']?.schema.$ref, `${op.id} ${status}`).to.equal(`#/components/schemas/${op.error}`);
      if (op.write) expect(statuses(op.id), op.id).to.include.members(['409', '422']);
      if (op.access !== 'public') expect(statuses(op.id), op.id).to.include('403');
    }
    expect(statuses('billing.invoices.get')).to.include('404');
    expect(doc.paths['/billing.invoices.get']?.post.responses['404']?.description).to.contain('`invoice_not_found`');
    expect(statuses('assemblies.subscribe.stream')).to.include.members(['410', '429']);
    // One condition, one status: preview's unrateable samples are the 409 generate and re-rate answer, 422 only a reused key.
    expect(doc.paths['/billing.configuration.preview.get']?.post.responses['409']?.description).to.contain('`usage_unrateable`');
    expect(statuses('billing.configuration.preview.get')).to.not.include('422');
  });

  it('documents the event names of each stream, each with its data schema', () => {
    const post = doc.paths['/assemblies.subscribe.stream']?.post;
    expect(post?.description).to.contain('`search_completed`');
    expect(Object.keys(post?.responses['200']?.['x-sse-events'] ?? {})).to.deep.equal(['search_completed']);
    expect(Object.keys(doc.paths['/assemblies.v4.updates.stream']?.post.responses['200']?.['x-sse-events'] ?? {})).to.deep.equal(['changed', 'heartbeat']);
  });

  it('has a schema for every type its text names', () => {
    const text = JSON.stringify(doc.paths) + JSON.stringify(doc.components.schemas);
    const named = new Set([...text.matchAll(/\b(?:billing|ingest|tier1|analytics|uuid|identity|integrations|jobs|platform)\.[A-Z][A-Za-z0-9]+\b/g)].map((m) => m[0]));
    expect(named).to.include('ingest.SellableItemRow');
    expect([...named].filter((n) => doc.components.schemas[n] === undefined)).to.deep.equal([]);
  });

  it('/docs/guide lists every operation; /docs loads the reference from this service', async () => {
    const reference = await (await fetch(`${svc.url}/docs`)).text();
    expect(reference).to.contain('<script src="/docs/assets/scalar.js"></script>').and.to.contain('href="/docs/guide"');
    const scalar = await fetch(`${svc.url}/docs/assets/scalar.js`);
    expect([scalar.status, scalar.headers.get('content-type')]).to.deep.equal([200, 'text/javascript; charset=utf-8']);
    expect((await fetch(`${svc.url}/docs/assets/nothing.js`)).status).to.equal(404);
    const res = await fetch(`${svc.url}/docs/guide`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.contain('text/html');
    const html = await res.text();
    for (const op of svc.app.registry.list('core')) expect(html, op.id).to.contain(`POST /api/v1/${op.id}`);
    expect(html).to.contain('/api/v1/openapi.json');
  });
});
