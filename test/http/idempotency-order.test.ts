// Finding 5: an Idempotency-Key compares bodies as canonical JSON: the same body with its keys in another order is a replay.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';

for (const backend of backends()) {
  describe(`idempotency keys compare canonical JSON (${backend})`, () => {
    let svc: TestService;
    let token: string;
    before(async () => {
      svc = await startService(backend);
      token = (await svc.signUp()).token;
    });
    after(async () => svc?.close());

    const raw = (text: string, key: string, as = token) =>
      fetch(`${svc.url}/api/v1/billing.customers.insert`, { method: 'POST', headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json', 'idempotency-key': key }, body: text });

    it('replays the first answer for the same body with keys (also nested ones) in another order, and writes once', async () => {
      const first = await raw('{"name":"Order Ltd","email":"o@example.com","currency":"GBP","metadata":{"a":"1","b":"2"},"billing_address":{"line1":"1 High St","city":"Leeds","country":"GB"}}', 'order-1');
      expect(first.status).to.equal(200);
      const created = (await first.json()) as { id: string };
      const again = await raw('{"billing_address":{"country":"GB","city":"Leeds","line1":"1 High St"},"metadata":{"b":"2","a":"1"},"currency":"GBP","email":"o@example.com","name":"Order Ltd"}', 'order-1');
      expect(again.status).to.equal(200);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(((await again.json()) as { id: string }).id).to.equal(created.id);
      const list = await svc.call(ops['billing.customers.list'], {}, token);
      expect(list.body.items.map((c: { id: string }) => c.id)).to.deep.equal([created.id]);
    });

    it('still answers 422 for a different body', async () => {
      const other = (await svc.signUp()).token;
      const first = await raw('{"name":"Other Ltd","email":"x@example.com","currency":"GBP"}', 'order-2', other);
      expect(first.status).to.equal(200);
      const changed = await raw('{"currency":"GBP","email":"x@example.com","name":"Other Ltd.","tax_id":"T"}', 'order-2', other);
      expect(changed.status).to.equal(422);
      expect(((await changed.json()) as { code: string }).code).to.equal('idempotency_key_reused');
    });
  });
}
