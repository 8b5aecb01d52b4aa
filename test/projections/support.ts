// Helpers for projection tests: dump every read-model table, and fill the log with a realistic mix of events.
import type { Knex } from 'knex';
import { projections } from '../../src/areas/index.ts';
import type { TestService } from '../support/app.ts';

/** Every row of every table the registered projections own, ordered, keyed by table. */
export async function dumpReadModels(knex: Knex): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const p of projections) {
    for (const t of p.tables) out[t] = await knex(t).select('*').orderBy('id');
  }
  return out;
}

/** Writes organizations, users, customers (created, updated, removed) and notes (added, edited, removed) over HTTP. */
export async function writeSampleData(svc: TestService): Promise<void> {
  const staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
  for (let i = 0; i < 4; i++) {
    const o = await svc.signUp({ role: i % 2 ? 'admin' : 'owner' });
    const c = await svc.call('billing.customers.insert', {
      name: `Customer ${i}`, email: `c${i}@example.com`, currency: i % 2 ? 'EUR' : 'GBP', tax_id: 'GB123', metadata: { n: String(i) },
      billing_address: { line1: '1 High St', city: 'Leeds', country: 'GB' },
    }, o.token);
    if (c.status !== 200) throw new Error(`customers.insert: ${JSON.stringify(c.body)}`);
    svc.clock.advance(1000);
    await svc.call('billing.customers.update', { id: c.body.id, name: `Customer ${i} Ltd`, tax_id: null, billing_address: null }, o.token);
    const n = await svc.call('billing.notes.insert', { subject: { type: 'customer', id: c.body.id }, body: `first note ${i}` }, o.token);
    await svc.call('billing.notes.update', { id: n.body.id, body: `edited note ${i}` }, staff.token);
    const n2 = await svc.call('billing.notes.insert', { subject: { type: 'customer', id: c.body.id }, body: `second note ${i}` }, staff.token);
    if (i === 3) {
      await svc.call('billing.notes.remove', { id: n2.body.id }, o.token);
      await svc.call('billing.customers.remove', { id: c.body.id }, o.token);
    }
  }
}
