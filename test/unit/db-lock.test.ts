// Finding 8: the embedded database's lock is released with its holder, so an immediate restart after a crash opens it.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseLockedError, lockDirectory } from '../../src/db-lock.ts';
import { ROOT } from '../support/process.ts';

describe('embedded database lock', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-server-lock-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses a second holder, naming the holder pid, and is free again once released', async () => {
    const release = await lockDirectory(dir);
    const second = await lockDirectory(dir).then(() => null, (e: unknown) => e);
    expect(second).to.be.instanceOf(DatabaseLockedError);
    expect(String(second)).to.contain(`pid ${process.pid}`);
    await release();
    const again = await lockDirectory(dir);
    await again();
  });

  it('is free at once after its holder is killed with SIGKILL, five times in a row', async () => {
    const lockModule = path.join(ROOT, 'src/db-lock.ts');
    for (let i = 0; i < 5; i++) {
      const child = spawn(process.execPath, ['--import', 'tsx', '-e', `import(${JSON.stringify(lockModule)}).then((m) => m.lockDirectory(${JSON.stringify(dir)})).then(() => { console.log('locked'); setInterval(() => {}, 1000); })`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d) => String(d).includes('locked') && resolve());
        child.on('exit', (code) => reject(new Error(`holder exited with ${code}`)));
      });
      const refused = await lockDirectory(dir).then(() => null, (e: unknown) => e);
      expect(refused, 'while the holder lives').to.be.instanceOf(DatabaseLockedError);
      expect(String(refused)).to.contain(`pid ${child.pid}`);
      const exited = new Promise((r) => child.on('exit', r));
      child.kill('SIGKILL');
      await exited;
      const release = await lockDirectory(dir);
      await release();
    }
  });

  it('is not refused because a leftover pid file names a live process that is not a core-server', async () => {
    // pid 1 always answers kill(pid, 0); the old pid-file lock refused to start here.
    fs.writeFileSync(path.join(dir, 'core-server.pid'), '1');
    const release = await lockDirectory(dir);
    await release();
  });
});
