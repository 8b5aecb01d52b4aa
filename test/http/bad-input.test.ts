// Bad input never causes a 500: every core operation answers malformed bodies with a 4xx and the error body.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { createSession } from '../../src/commands/identity/identity.ts';
import type { ZodType } from 'zod';
import { ops } from '../support/ops.ts';

const nested = (depth: number): unknown => (depth === 0 ? [[{}]] : { a: nested(depth - 1), b: [nested(depth - 1 > 2 ? 2 : 0)] });

/** Values that are wrong for every field of every request. */
const GARBAGE: unknown[] = [12345, -1.5, true, null, [1, 2], { deep: nested(6) }, 'x'.repeat(100_000), '\u0000\uFFFF', 1e308];

/** Whole bodies that are not a request object. */
const BODIES: unknown[] = [null, 0, 'a bare string', '', true, [], [{}], [{ id: '0190c6a2-0000-7000-8000-000000000000' }], nested(8), 'x'.repeat(500_000)];

function fieldsOf(schema: ZodType | null): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | null)?.shape;
  return shape ? Object.keys(shape) : [];
}

for (const backend of backends()) {
  describe(`bad input never 500 (${backend})`, function () {
    this.timeout(300_000);
    let svc: TestService;
    let staffUser: { userId: string; orgId: string };
    before(async () => {
      svc = await startService(backend);
      const staff = await svc.signUp({ kind: 'platform', role: 'owner', staff: ['billing_staff'] });
      staffUser = staff;
      // Something to point at, so lookups get past "not found".
      const c = await svc.call(ops['billing.customers.insert'], { name: 'Target', email: 't@example.com', currency: 'GBP' }, staff.token);
      expect(c.status).to.equal(200);
    });
    after(async () => svc?.close());

    it('answers every malformed body to every core operation with a 4xx and the error body', async () => {
      const ops = svc.app.registry.list('core');
      expect(ops.length).to.be.greaterThan(5);
      let calls = 0;
      for (const op of ops) {
        const candidates: unknown[] = [...BODIES];
        for (const f of fieldsOf(op.request)) for (const g of GARBAGE) candidates.push({ [f]: g });
        candidates.push({ unknown_field: 1 });
        if (fieldsOf(op.request).length) candidates.push(Object.fromEntries(fieldsOf(op.request).map((f) => [f, {}])));
        // Malformed means: the request schema refuses it, or it carries NUL text (which no field may hold).
        // A garbage value that happens to be valid for a field (true for a boolean filter, say) is skipped.
        const bodies = candidates.filter((b) => op.request === null || !op.request.safeParse(b).success || JSON.stringify(b)?.includes('\\u0000'));
        for (const body of bodies) {
          // Use a throwaway session so that a sign-out operation cannot end the suite's session.
          const s = await createSession(svc.app.knex, { userId: staffUser.userId, organizationId: staffUser.orgId, now: svc.clock.now(), ttlHours: 1 });
          const res = await svc.send(op.id, body, s.token);
          calls++;
          const what = `${op.id} <- ${JSON.stringify(body)?.slice(0, 120)} -> ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`;
          expect(res.status, what).to.be.within(400, 499);
          expect(res.body.code, what).to.be.a('string');
          expect(res.body.type, what).to.be.a('string');
          expect(res.body.request_id, what).to.equal(res.headers.get('x-request-id'));
        }
      }
      expect(calls).to.be.greaterThan(100);
    });

    it('answers bodies nested hundreds of thousands deep with 400, not a stack overflow', async () => {
      const org = await svc.signUp();
      const bodies = ['['.repeat(400_000) + ']'.repeat(400_000), '{"a":'.repeat(150_000) + '1' + '}'.repeat(150_000), '{"query":' + '['.repeat(300_000) + ']'.repeat(300_000) + '}'];
      for (const op of ['billing.customers.list', 'billing.customers.insert', 'auth.sessions.get']) {
        for (const body of bodies) {
          const res = await fetch(`${svc.url}/api/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' }, body });
          const json = (await res.json()) as { code: string };
          expect(res.status, `${op} ${body.slice(0, 12)}`).to.equal(400);
          expect(json.code).to.equal('invalid_request');
        }
      }
      // Reasonable nesting (metadata values are flat; an address is two levels) is fine.
      const ok = await svc.call(ops['billing.customers.insert'], { name: 'N', email: 'n@example.com', currency: 'GBP', billing_address: { line1: 'a', city: 'b', country: 'GB' } }, org.token);
      expect(ok.status).to.equal(200);
    });

    it('answers a valid body with one field broken with a 4xx that writes nothing (or a 200 when the value happens to be valid)', async () => {
      const org = await svc.signUp();
      const customer = await svc.call(ops['billing.customers.insert'], { name: 'Valid', email: 'v@example.com', currency: 'GBP' }, org.token);
      const note = await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: customer.body.id }, body: 'hello' }, org.token);
      const valid: Record<string, Record<string, unknown>> = {
        'billing.customers.insert': { name: 'N', email: 'n@example.com', currency: 'GBP', billing_address: { line1: 'a', city: 'b', country: 'GB' }, payment_terms_days: 10, tax_id: 'T', metadata: { k: 'v' } },
        'billing.customers.update': { id: customer.body.id, name: 'N', email: 'n@example.com', currency: 'EUR', billing_address: { line1: 'a', city: 'b', country: 'GB' }, payment_terms_days: 10, tax_id: 'T', metadata: { k: 'v' } },
        'billing.customers.get': { id: customer.body.id },
        'billing.customers.list': { limit: 10, status: 'active', query: 'x' },
        'billing.notes.insert': { subject: { type: 'customer', id: customer.body.id }, body: 'b' },
        'billing.notes.update': { id: note.body.id, body: 'b' },
        'billing.notes.list': { subject: { type: 'customer', id: customer.body.id }, limit: 5 },
      };
      const broken: unknown[] = [...GARBAGE, '', 'A\u0000B', { line1: 12 }, { type: 'customer', id: 'not-a-uuid' }, { k: { nested: 'x' } }, { '\u0000': 'x' }, -1, 1.5, 10_000_000];
      const eventCount = async () => (await svc.app.knex('es_events').select('event_id')).length;
      for (const [opId, body] of Object.entries(valid)) {
        for (const field of Object.keys(body)) {
          for (const value of broken) {
            if (JSON.stringify(value) === JSON.stringify(body[field])) continue;
            const before = await eventCount();
            const res = await svc.send(opId, { ...body, [field]: value }, org.token);
            // Some replacements are valid values of that field (e.g. '' is not, but -1 is not a name): only a 2xx or a 4xx is acceptable.
            const what = `${opId}.${field} <- ${JSON.stringify(value)?.slice(0, 80)} -> ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`;
            expect(res.status, what).to.not.be.within(500, 599);
            if (res.status !== 200) {
              expect(res.status, what).to.be.within(400, 499);
              expect(res.body.code, what).to.be.a('string');
              expect(await eventCount(), `${what}: wrote events`).to.equal(before);
            }
          }
        }
      }
      const nul = await svc.call(ops['billing.notes.update'], { id: note.body.id, body: 'bad \u0000 body' }, org.token);
      expect(nul.status).to.equal(400);
      expect(nul.body.issues?.[0]?.path).to.equal('body');
      const nulKey = await svc.call(ops['billing.customers.update'], { id: customer.body.id, metadata: { 'a\u0000': 'x' } }, org.token);
      expect(nulKey.status).to.equal(400);
    });
  });
}
