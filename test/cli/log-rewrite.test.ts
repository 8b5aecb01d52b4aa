// `core-server log encrypt-personal-data` as an operator runs it (the core is tested through functions in
// test/eventstore/encrypt-personal-data.test.ts): one real process over a temporary DATA_DIR.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { childEnv, runCli } from '../support/process.ts';

describe('core-server log encrypt-personal-data (CLI)', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-logcli-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses without a backup in one line, and with --backup-to makes the backup, then rewrites and reports', async () => {
    const env = childEnv({ DATA_DIR: path.join(dir, 'data') });
    const refused = await runCli(['log', 'encrypt-personal-data'], env);
    expect(refused.code).to.equal(1);
    expect(refused.stderr.trim().split('\n')).to.deep.equal(['core-server: refusing to rewrite the log without a backup: pass --backup-to <file> (or --backup <file> made by `core-server log backup --to <file>`); --dry-run needs none']);

    const file = path.join(dir, 'log.jsonl');
    const ran = await runCli(['log', 'encrypt-personal-data', '--backup-to', file], env);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(ran.stderr).to.match(/^backup of \d+ events written to .*log\.jsonl \(sha256 [0-9a-f]{64}\)$/m);
    expect(ran.stdout).to.match(/^log rewritten; backup .*log\.jsonl/m);
    expect(ran.stdout).to.match(/^events rewritten: 0$/m);
    expect(ran.stdout).to.match(/^password hashes removed: 0$/m);
    expect(JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0] ?? '{}')).to.have.property('format', 'core-server/es_events-backup/v1');
  });
});
