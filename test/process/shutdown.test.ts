// Finding 7: a service stops when told, even when nobody reads its log output any more.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnv, freePort, spawnCli } from '../support/process.ts';

describe('shutdown (start process)', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('exits within SHUTDOWN_TIMEOUT_MS after SIGTERM while its stdout reader has stopped reading, and kept serving meanwhile', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-server-shutdown-'));
    dirs.push(dir);
    const port = await freePort();
    const proc = spawnCli(['start'], childEnv({ DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '4000' }));
    await proc.waitFor(/API reference: .*\n/);
    // The reader stops reading: the pipe (64 KiB) fills with request log lines.
    proc.child.stdout?.pause();
    proc.child.stdout?.removeAllListeners('data');
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 1500; i += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(`${base}/healthz?padding=${'x'.repeat(200)}`).then((r) => r.status)));
      expect(answers.every((s) => s === 200), 'healthz while stdout is not read').to.equal(true);
    }
    const started = Date.now();
    proc.child.kill('SIGTERM');
    const exit = await Promise.race([proc.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000))]);
    if (exit === 'hung') proc.child.kill('SIGKILL');
    expect(exit, 'still running 15 s after SIGTERM').to.not.equal('hung');
    expect(Date.now() - started, 'exit time').to.be.below(6_000);
    // The port is closed.
    const after = await fetch(`${base}/healthz`).then(() => 'answered', () => 'refused');
    expect(after).to.equal('refused');
  });
});
