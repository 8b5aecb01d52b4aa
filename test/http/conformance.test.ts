// HTTP conventions of DESIGN.md section 8: error body and statuses, auth, request ids, idempotency, health, metrics.
import { expect } from 'chai';
import zlib from 'node:zlib';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { createSession } from '../../src/commands/identity/identity.ts';
import { newSecret } from '../../src/secrets.ts';
import { ops } from '../support/ops.ts';

type SignUp = Awaited<ReturnType<TestService['signUp']>>;

/** Asserts the one error shape: type, code, message, request_id (equal to the X-Request-Id header). */
function expectErrorBody(res: { status: number; headers: Headers; body: unknown }, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body).to.be.an('object');
  expect(res.body).to.have.property('code', code);
  expect(res.body).to.have.property('type').that.is.a('string').and.not.equal('');
  expect(res.body).to.have.property('message').that.is.a('string').and.not.equal('');
  expect(res.body).to.have.property('request_id').that.is.a('string').and.not.equal('');
  expect(res.body).to.have.property('request_id', res.headers.get('x-request-id'));
}

async function raw(url: string, init: RequestInit & { headers?: Record<string, string> }) {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: res.status, headers: res.headers, body };
}

for (const backend of backends()) {
  describe(`HTTP conformance (${backend})`, () => {
    let svc: TestService;
    let owner: SignUp;
    before(async () => {
      svc = await startService(backend);
      owner = await svc.signUp();
    });
    after(async () => svc?.close());

    it('answers an unknown operation with 404 and the error body', async () => {
      const res = await svc.send('billing.nothing.here', {}, owner.token);
      expectErrorBody(res, 404, 'unknown_operation');
      expectErrorBody(await raw(`${svc.url}/api/v1/`, { method: 'POST' }), 404, 'unknown_operation');
      expectErrorBody(await raw(`${svc.url}/api/v1/a/b`, { method: 'POST' }), 404, 'unknown_operation');
      expectErrorBody(await raw(`${svc.url}/no/such/page`, { method: 'GET' }), 404, 'not_found');
    });

    it('answers GET on an operation with 405 and Allow: POST', async () => {
      const res = await raw(`${svc.url}/api/v1/billing.customers.get`, { method: 'GET', headers: { authorization: `Bearer ${owner.token}` } });
      expectErrorBody(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).to.equal('POST');
      expect(res.body).to.have.property('type', 'billing.CustomerGetError');
    });

    it('refuses a body that is not JSON with 415', async () => {
      const res = await raw(`${svc.url}/api/v1/billing.customers.list`, { method: 'POST', headers: { 'content-type': 'text/plain', authorization: `Bearer ${owner.token}` }, body: '{}' });
      expectErrorBody(res, 415, 'unsupported_media_type');
      expect(res.body).to.have.property('type', 'billing.CustomerListError');
      const form = await raw(`${svc.url}/api/v1/billing.customers.list`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${owner.token}` }, body: 'a=1' });
      expectErrorBody(form, 415, 'unsupported_media_type');
    });

    it('answers malformed JSON with 400 malformed_json', async () => {
      for (const body of ['{', '{"limit": }', 'nul', '{"a":1}}', '\u0000']) {
        const res = await raw(`${svc.url}/api/v1/billing.customers.list`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` }, body });
        expectErrorBody(res, 400, 'malformed_json');
      }
    });

    it('answers a body it cannot decode (corrupt gzip or br) with 400, and accepts a gzip body', async () => {
      for (const encoding of ['gzip', 'br', 'deflate']) {
        const res = await raw(`${svc.url}/api/v1/billing.customers.list`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': encoding, authorization: `Bearer ${owner.token}` }, body: 'not compressed' });
        expectErrorBody(res, 400, 'malformed_json');
      }
      const gz = await raw(`${svc.url}/api/v1/billing.customers.list`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: `Bearer ${owner.token}` }, body: zlib.gzipSync('{"limit":2}') });
      expect(gz.status).to.equal(200);
      const bomb = await raw(`${svc.url}/api/v1/billing.customers.list`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: `Bearer ${owner.token}` }, body: zlib.gzipSync(JSON.stringify({ query: ' '.repeat(5_000_000) })) });
      expectErrorBody(bomb, 413, 'payload_too_large');
    });

    it('answers a body over 1 MiB with 413', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), email: 'a@b.example', currency: 'GBP' });
      const res = await raw(`${svc.url}/api/v1/billing.customers.insert`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` }, body: big });
      expectErrorBody(res, 413, 'payload_too_large');
      // Just under the limit is parsed (and then refused by validation, not by size).
      const under = JSON.stringify({ name: 'x'.repeat(1024 * 1024 - 200), email: 'a@b.example', currency: 'GBP' });
      const ok = await raw(`${svc.url}/api/v1/billing.customers.insert`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` }, body: under });
      expectErrorBody(ok, 400, 'invalid_request');
    });

    it('answers unknown fields with 400 invalid_request and issues naming them', async () => {
      const res = await svc.send('billing.customers.list', { limit: 5, colour: 'red' }, owner.token);
      expectErrorBody(res, 400, 'invalid_request');
      expect(res.body.issues).to.be.an('array').with.length.greaterThan(0);
      expect(JSON.stringify(res.body.issues)).to.contain('colour');
      const wrongType = await svc.send('billing.customers.list', { limit: 'ten' }, owner.token);
      expectErrorBody(wrongType, 400, 'invalid_request');
      expect(wrongType.body.issues?.map((i: { path: string }) => i.path)).to.deep.equal(['limit']);
    });

    it('answers missing, malformed, unknown, expired and revoked tokens with 401', async () => {
      expectErrorBody(await svc.call(ops['billing.customers.list'], {}), 401, 'unauthenticated');
      expectErrorBody(await svc.call(ops['billing.customers.list'], {}, null, { authorization: 'Basic dXNlcjpwYXNz' }), 401, 'unauthenticated');
      expectErrorBody(await svc.call(ops['billing.customers.list'], {}, 'not-a-token'), 401, 'unauthenticated');
      expectErrorBody(await svc.call(ops['billing.customers.list'], {}, newSecret('svc_sess_')), 401, 'unauthenticated');
      expectErrorBody(await svc.call(ops['billing.customers.list'], {}, owner.token.slice(0, -1) + (owner.token.endsWith('A') ? 'B' : 'A')), 401, 'unauthenticated');
      const expired = await createSession(svc.app.knex, { userId: owner.userId, organizationId: owner.orgId, now: new Date(svc.clock.now().getTime() - 3 * 3_600_000), ttlHours: 2 });
      expectErrorBody(await svc.call(ops['billing.customers.list'], {}, expired.token), 401, 'unauthenticated');
      const s = await createSession(svc.app.knex, { userId: owner.userId, organizationId: owner.orgId, now: svc.clock.now(), ttlHours: 1 });
      expect((await svc.call(ops['billing.customers.list'], {}, s.token)).status).to.equal(200);
      expect((await svc.call(ops['auth.sessions.remove'], undefined, s.token)).status).to.equal(200);
      expectErrorBody(await svc.call(ops['billing.customers.list'], {}, s.token), 401, 'unauthenticated');
      // The error type is the operation's.
      expect((await svc.call(ops['billing.customers.get'], { id: owner.orgId })).body.type).to.equal('billing.CustomerGetError');
    });

    it('puts the request id in every error body and in X-Request-Id, and echoes a given one', async () => {
      const ok = await svc.call(ops['auth.sessions.get'], undefined, owner.token);
      expect(ok.status).to.equal(200);
      expect(ok.headers.get('x-request-id')).to.be.a('string').and.not.equal('');
      const given = await svc.call(ops['billing.customers.get'], { id: owner.orgId }, owner.token, { 'x-request-id': 'trace-123.abc' });
      expectErrorBody(given, 404, 'customer_not_found');
      expect(given.body.request_id).to.equal('trace-123.abc');
      // A request id that is not a safe token is replaced.
      const unsafe = await svc.call(ops['billing.customers.get'], { id: owner.orgId }, owner.token, { 'x-request-id': 'bad id <script>' });
      expect(unsafe.body.request_id).to.not.contain('<');
    });

    it('Idempotency-Key: same key and body replay the first answer with one write; another body is 422', async () => {
      const other = await svc.signUp();
      const body = { name: 'Idem Ltd', email: 'idem@example.com', currency: 'GBP' };
      const first = await svc.call(ops['billing.customers.insert'], body, other.token, { 'idempotency-key': 'key-1' });
      expect(first.status).to.equal(200);
      const second = await svc.call(ops['billing.customers.insert'], body, other.token, { 'idempotency-key': 'key-1' });
      expect(second.status).to.equal(200);
      expect(second.body).to.deep.equal(first.body);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      const events = await svc.app.knex('es_events').where({ stream_id: `customer-${first.body.id}` }).select('event_id');
      expect(events).to.have.length(1);
      const changed = await svc.call(ops['billing.customers.insert'], { ...body, name: 'Other Ltd' }, other.token, { 'idempotency-key': 'key-1' });
      expectErrorBody(changed, 422, 'idempotency_key_reused');
      // A note inserted twice with one key is one note (its id comes from the key).
      const note = { subject: { type: 'customer' as const, id: first.body.id }, body: 'once' };
      const n1 = await svc.call(ops['billing.notes.insert'], note, other.token, { 'idempotency-key': 'note-1' });
      const n2 = await svc.call(ops['billing.notes.insert'], note, other.token, { 'idempotency-key': 'note-1' });
      expect(n2.body).to.deep.equal(n1.body);
      expect((await svc.call(ops['billing.notes.list'], { subject: note.subject }, other.token)).body.items).to.have.length(1);
      // Keys are per caller: another user may use the same key.
      const third = await svc.signUp();
      expect((await svc.call(ops['billing.customers.insert'], body, third.token, { 'idempotency-key': 'key-1' })).status).to.equal(200);
    });

    it('Idempotency-Key: concurrent requests with one key write once; the rest replay or are told to retry', async () => {
      const other = await svc.signUp();
      const body = { name: 'Racy Ltd', email: 'racy@example.com', currency: 'GBP' };
      const answers = await Promise.all(Array.from({ length: 6 }, () => svc.call(ops['billing.customers.insert'], body, other.token, { 'idempotency-key': 'race-1' })));
      const ok = answers.filter((a) => a.status === 200);
      expect(ok.length).to.be.at.least(1);
      for (const a of ok) expect(a.body).to.deep.equal(ok[0]!.body);
      for (const a of answers.filter((x) => x.status !== 200)) {
        expectErrorBody(a, 409, 'idempotency_key_in_use');
        expect(a.headers.get('retry-after')).to.equal('1');
      }
      expect(await svc.app.knex('es_events').where({ stream_id: `customer-${ok[0]!.body.id}` }).select('event_id')).to.have.length(1);
      const later = await svc.call(ops['billing.customers.insert'], body, other.token, { 'idempotency-key': 'race-1' });
      expect(later.body).to.deep.equal(ok[0]!.body);
    });

    it('rejects an unusable Idempotency-Key with 400', async () => {
      const other = await svc.signUp();
      const res = await svc.call(ops['billing.customers.insert'], { name: 'K', email: 'k@example.com', currency: 'GBP' }, other.token, { 'idempotency-key': 'x'.repeat(300) });
      expectErrorBody(res, 400, 'invalid_idempotency_key');
    });

    it('serves /healthz, /readyz and /metrics', async () => {
      const health = await raw(`${svc.url}/healthz`, {});
      expect(health.status).to.equal(200);
      expect(health.body).to.deep.equal({ status: 'ok' });
      const ready = await raw(`${svc.url}/readyz`, {});
      expect(ready.status).to.equal(200);
      expect(ready.body).to.have.property('status', 'ready');
      // One shape: a check per dependency, each ok with a line an operator reads.
      const checks = (ready.body as unknown as { checks: { name: string; ok: boolean; detail: string }[] }).checks;
      expect(checks[0]).to.deep.equal({ name: 'database', ok: true, detail: 'reachable' });
      expect(checks.map((c) => c.name)).to.include('projection:billing.customers');
      expect(checks.every((c) => c.ok && c.detail.length > 0)).to.equal(true);
      const metrics = await raw(`${svc.url}/metrics`, {});
      expect(metrics.status).to.equal(200);
      expect(metrics.headers.get('content-type')).to.contain('text/plain');
      expect(metrics.body).to.contain('http_request_duration_seconds_bucket');
      expect(metrics.body).to.contain('operation="billing.customers.list"');
      // The request histogram says which error each refusal answered (none for a success).
      expect(metrics.body).to.match(/http_request_duration_seconds_count\{operation="billing.customers.insert",status="400",code="invalid_idempotency_key"\} [1-9]/);
      expect(metrics.body).to.match(/http_request_duration_seconds_count\{operation="billing.customers.list",status="200",code="none"\} [1-9]/);
      expect(metrics.body).to.match(/db_pool_connections\{state="in_use"\} \d+/);
      expect(metrics.body).to.match(/projection_lag_seconds\{projection="billing.customers"\}/);
      expect(metrics.body).to.contain('eventstore_append_duration_seconds');
    });
  });
}
