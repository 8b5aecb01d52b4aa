// `core-server rates import FILE`: the parser and importer in process, then the command as an operator runs it.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { platformStaff } from '../support/catalogue.ts';
import { settle } from '../support/settle.ts';
import { importRates, parseRatesCsv } from '../../src/cli/rates.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { childEnv, runCli } from '../support/process.ts';

const CSV = 'base,target,rate,as_of,source\nEUR,GBP,0.85,2026-01-01T00:00:00Z,ECB\n\nUSD,GBP,0.791234567890123456,2026-01-01T00:00:00Z,ECB\n';

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err.message;
    throw err;
  }
  return expect.fail('expected a refusal');
}

describe('rates import: parsing', () => {
  it('reads rows as the API reads a request, keeping rates as the strings in the file', () => {
    expect(parseRatesCsv(CSV)).to.deep.equal([
      { base: 'EUR', target: 'GBP', rate: '0.85', as_of: '2026-01-01T00:00:00Z', source: 'ECB' },
      { base: 'USD', target: 'GBP', rate: '0.791234567890123456', as_of: '2026-01-01T00:00:00Z', source: 'ECB' },
    ]);
  });

  it('names the line of a bad row or header', () => {
    expect(refusal(() => parseRatesCsv('base,rate\n'))).to.match(/first line/);
    expect(refusal(() => parseRatesCsv('base,target,rate,as_of,source\nEUR,GBP,0.85,2026-01-01T00:00:00Z\n'))).to.match(/^Line 2: expected 5 fields/);
    expect(refusal(() => parseRatesCsv('base,target,rate,as_of,source\nEUR,GBP,0.85,2026-01-01T00:00:00Z,ECB\nEUR,GBP,1e3,2026-01-01T00:00:00Z,ECB\n'))).to.match(/^Line 3: rate/);
  });
});

for (const backend of backends()) {
  describe(`rates import: recording (${backend})`, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService(backend);
    });
    after(async () => svc?.close());

    it('records every row; importing the same file again records nothing; a refused row writes nothing at all', async () => {
      // The CLI's path: the operation invoked as the system job `cli`.
      const ctx = () => svc.app;
      expect(await importRates(ctx(), parseRatesCsv(CSV))).to.deep.equal({ recorded: 2, unchanged: 0 });
      expect(await importRates(ctx(), parseRatesCsv(CSV))).to.deep.equal({ recorded: 0, unchanged: 2 });
      const count = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);
      const before = await count();
      let error: unknown;
      try {
        await importRates(ctx(), parseRatesCsv('base,target,rate,as_of,source\nCHF,GBP,0.9,2026-01-01T00:00:00Z,SNB\nGBP,GBP,1,2026-01-01T00:00:00Z,x\n'));
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(DomainError);
      expect(await count()).to.equal(before);
      await settle(svc);
      const listed = await svc.call(ops['billing.currency-exchange-rates.list'], { target: 'GBP' }, await platformStaff(svc));
      expect(listed.body.map((r) => [r.base, r.rate])).to.deep.equal([['EUR', '0.85'], ['USD', '0.791234567890123456']]);
    });
  });
}

describe('core-server rates import FILE', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-server-rates-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (args: string[]) => runCli(args, childEnv({ DATA_DIR: dir }));

  it('prints how many rates it recorded; a bad file is one line naming the row, no stack trace', async () => {
    const file = path.join(dir, 'rates.csv');
    fs.writeFileSync(file, CSV);
    expect((await run(['migrate'])).code).to.equal(0);
    const ok = await run(['rates', 'import', file]);
    expect(ok.stdout.trim(), ok.stderr).to.equal('recorded 2 rate(s), 0 unchanged');
    const bad = path.join(dir, 'bad.csv');
    fs.writeFileSync(bad, 'base,target,rate,as_of,source\nEUR,GBP,-1,2026-01-01T00:00:00Z,ECB\n');
    const refused = await run(['rates', 'import', bad]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr.trim()).to.match(/^core-server: Line 2: rate/);
    expect(refused.stderr).to.not.match(/^\s+at .+:\d+:\d+\)?$/m);
  });
});
