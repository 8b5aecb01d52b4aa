// Finding 7: a service stops when told, even when nobody reads its log output any more.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT, childEnv, freePort, spawnCli } from '../support/process.ts';

/** A process whose service never finishes closing, stopped by stopOnSignals with `timeoutMs`. */
function hangingService(timeoutMs: number) {
  const shutdown = JSON.stringify(path.join(ROOT, 'src/shutdown.ts'));
  const code = `import(${shutdown}).then((m) => { m.stopOnSignals({ logger: { info() {}, error() {} }, close: () => new Promise(() => {}) }, { timeoutMs: ${timeoutMs} }); console.log('ready'); setInterval(() => {}, 1000); })`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', code], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const ready = new Promise<void>((resolve) => child.stdout.on('data', (d) => String(d).includes('ready') && resolve()));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (c) => resolve({ code: c, at: Date.now() })));
  return { child, ready, exited, stderr: () => stderr };
}

describe('shutdown (start process)', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('exits 1 with a line on stderr when closing hangs past the deadline', async () => {
    const svc = hangingService(500);
    await svc.ready;
    const sent = Date.now();
    svc.child.kill('SIGTERM');
    const exit = await svc.exited;
    expect(exit.code).to.equal(1);
    expect(exit.at - sent).to.be.within(400, 5_000);
    expect(svc.stderr()).to.contain('did not finish within 500 ms');
  });

  it('exits at once on a second signal while closing hangs', async () => {
    const svc = hangingService(60_000);
    await svc.ready;
    svc.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    const sent = Date.now();
    svc.child.kill('SIGTERM');
    const exit = await svc.exited;
    expect(exit.code).to.equal(143);
    expect(exit.at - sent).to.be.below(2_000);
    expect(svc.stderr()).to.contain('second SIGTERM');
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
