// `core-server usage import FILE`: CSV and NDJSON in process (bad rows named by line, good rows recorded), then once as a process.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { billingStaff } from '../support/billing.ts';
import { type Seller, order, sellerWithSubscription } from '../support/usage.ts';
import { settle } from '../support/settle.ts';
import { csvCells, formatOf, importUsage } from '../../src/cli/usage.ts';
import { childEnv, runCli } from '../support/process.ts';

describe('usage import: parsing', () => {
  it('splits CSV lines with RFC 4180 quoting, and tells an unclosed quote', () => {
    expect(csvCells('a,b,,c')).to.deep.equal(['a', 'b', '', 'c']);
    expect(csvCells('"A,1","say ""hi""",x')).to.deep.equal(['A,1', 'say "hi"', 'x']);
    expect(csvCells('"open,x')).to.equal(null);
    expect(csvCells('"a"b,c')).to.equal(null);
  });

  it('takes the format from the file name', () => {
    expect([formatOf('a.csv'), formatOf('b.NDJSON'), formatOf('c.jsonl'), formatOf('d.txt')]).to.deep.equal(['csv', 'ndjson', 'ndjson', null]);
  });
});

for (const backend of backends()) {
  describe(`usage import: recording (${backend})`, () => {
    let svc: TestService;
    let seller: Seller;
    let buyer: string;
    let stranger: string;
    // The CLI's path: the operation invoked as the system job `cli`.
    const ctx = () => svc.app;
    before(async () => {
      svc = await startService(backend);
      svc.clock.set('2026-03-05T12:00:00Z');
      seller = await sellerWithSubscription(svc);
      buyer = (await svc.signUp()).orgId;
      stranger = (await svc.signUp({ kind: 'supplier' })).orgId;
      const staff = await billingStaff(svc);
      const pre = await svc.call(ops['billing.usage.insert'], { orders: [order('C-9', seller.orgId, buyer, 900, '2026-02-09T09:00:00Z')] }, staff);
      expect(pre.status).to.equal(200);
    });
    after(async () => svc?.close());

    it('CSV: every good row is recorded whatever the bad rows around it; each bad row is named by its line', async () => {
      const csv = [
        'order_id,seller,buyer,amount,currency,occurred_at',
        `C-1,${seller.orgId},${buyer},1000,GBP,2026-02-01T10:00:00Z`,
        `C-2,${seller.orgId},${buyer},-5,GBP,2026-02-01T10:00:00Z`,
        '',
        `"C,3",${seller.orgId},${buyer},2500,GBP,2026-02-02T10:00:00Z`,
        `C-4,not-a-uuid,${buyer},100,GBP,2026-02-02T10:00:00Z`,
        `C-5,${stranger},${buyer},100,GBP,2026-02-02T10:00:00Z`,
        `C-9,${seller.orgId},${buyer},901,GBP,2026-02-09T09:00:00Z`,
        `"C-6,${seller.orgId}`,
        `C-7,${seller.orgId},${buyer},700,GBP,2026-02-03T10:00:00Z`,
        `C-1,${seller.orgId},${buyer},1000,GBP,2026-02-01T10:00:00Z`,
      ];
      const progress: number[] = [];
      const res = await importUsage(ctx(), csv, { format: 'csv', batchSize: 3, onProgress: (r) => progress.push(r.rows) });
      expect(res).to.deep.include({ rows: 9, recorded: 3, already_recorded: 1, failed: 5 });
      expect(res.errors.map((e) => e.line)).to.deep.equal([3, 6, 7, 8, 9]);
      expect(res.errors[0]?.message).to.match(/^amount\.amount: /);
      expect(res.errors[2]?.message).to.match(/^no_active_subscription: /);
      expect(res.errors[3]?.message).to.match(/^usage_conflict: order C-9/);
      expect(res.errors[4]?.message).to.equal('a quoted field is not closed');
      expect(progress.length).to.be.greaterThan(1);
      // The same file again records nothing new and fails the same rows.
      const again = await importUsage(ctx(), csv, { format: 'csv' });
      expect(again).to.deep.include({ rows: 9, recorded: 0, already_recorded: 4, failed: 5 });
      await settle(svc);
      const stored = await svc.app.knex('billing_usage').whereIn('order_id', ['C-1', 'C,3', 'C-7', 'C-9']).orderBy('order_id').select('order_id', 'amount');
      expect(stored.map((r: { order_id: string; amount: string }) => [r.order_id, Number(r.amount)])).to.deep.equal([['C,3', 2500], ['C-1', 1000], ['C-7', 700], ['C-9', 900]]);
    });

    it('CSV: a wrong header fails on line 1 and records nothing', async () => {
      const res = await importUsage(ctx(), ['id,seller', `N-1,${seller.orgId}`], { format: 'csv' });
      expect(res).to.deep.include({ rows: 0, recorded: 0, failed: 1 });
      expect(res.errors[0]?.line).to.equal(1);
    });

    it('NDJSON: one billing.usage.insert order per line, under an explicit subscription', async () => {
      const lines = [
        JSON.stringify(order('N-1', seller.orgId, buyer, 100, '2026-02-04T10:00:00Z')),
        '{not json',
        JSON.stringify({ ...order('N-2', seller.orgId, buyer, 100, '2026-02-04T10:00:00Z'), extra: true }),
        JSON.stringify(order('N-3', seller.orgId, buyer, 300, '2026-02-04T11:00:00+02:00')),
      ];
      const res = await importUsage(ctx(), lines, { format: 'ndjson', subscriptionId: seller.subscriptionId });
      expect(res).to.deep.include({ rows: 4, recorded: 2, already_recorded: 0, failed: 2 });
      expect(res.errors.map((e) => e.line)).to.deep.equal([2, 3]);
      const unknown = await importUsage(ctx(), [JSON.stringify(order('N-4', seller.orgId, buyer, 100, '2026-02-04T10:00:00Z'))], { format: 'ndjson', subscriptionId: buyer });
      expect(unknown).to.deep.include({ recorded: 0, failed: 1 });
      expect(unknown.errors[0]?.message).to.match(/^subscription_not_found: /);
    });

    it('counts the rows of a month already invoiced as late: they go on its next supplementary invoice', async () => {
      const staff = await billingStaff(svc);
      const other = await sellerWithSubscription(svc);
      expect((await svc.call(ops['billing.configuration.pricing.insert'], { subscription_id: other.subscriptionId, effective_from: '2026-01-01', currency: 'GBP', rates_bps: { platform_introduced: 100, pre_existing: 100 }, minimum_fee: 0, reason: 'Rate card' }, staff)).status).to.equal(200);
      const row = (id: string, day: string) => `${id},${other.orgId},${buyer},1000,GBP,2026-02-${day}T10:00:00Z`;
      const header = 'order_id,seller,buyer,amount,currency,occurred_at';
      expect(await importUsage(ctx(), [header, row('T-1', '01')], { format: 'csv' })).to.deep.include({ recorded: 1, late: 0 });
      expect((await svc.call(ops['billing.invoices.generate'], { subscription_id: other.subscriptionId, period: '2026-02' }, staff)).status).to.equal(200);
      expect(await importUsage(ctx(), [header, row('T-1', '01'), row('T-2', '02'), row('T-3', '03')], { format: 'csv' })).to.deep.include({ recorded: 2, already_recorded: 1, late: 2 });
    });
  });
}

describe('core-server usage import FILE (process)', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-server-usage-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reports each bad row by line on stderr, the counts on stdout, and exits 1 when a row failed', async () => {
    const file = path.join(dir, 'orders.ndjson');
    const seller = '0190c6a2-0000-7000-8000-000000000001';
    const buyer = '0190c6a2-0000-7000-8000-000000000002';
    fs.writeFileSync(file, `${JSON.stringify(order('P-1', seller, buyer, 100, '2026-02-01T00:00:00Z'))}\nnope\n`);
    const res = await runCli(['usage', 'import', file], childEnv({ DATA_DIR: dir }));
    expect(res.code, res.stderr).to.equal(1);
    expect(res.stdout.trim()).to.match(/^2 rows: 0 recorded, 0 already recorded, 2 failed \(/);
    expect(res.stderr).to.match(/^line 1: no_active_subscription: order P-1/m);
    expect(res.stderr).to.match(/^line 2: not a JSON object$/m);
    expect(res.stderr).to.match(/\[#+\.*\] +\d+% 2 rows/);
  });
});
