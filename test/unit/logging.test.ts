// The service's log output: access-log lines are batched, every other line is written at once, none is lost.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createLogger, stdoutLogOutput } from '../../src/logging.ts';

describe('log output', () => {
  let dir: string;
  let file: string;
  let fd: number;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-log-'));
    file = path.join(dir, 'out.log');
    fd = fs.openSync(file, 'a');
  });
  afterEach(() => {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const lines = () =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; level: number; i?: number });

  // Waits for the file to hold `n` lines: the writes are asynchronous (I/O, not a timer).
  async function untilLines(n: number): Promise<void> {
    for (let tries = 0; tries < 2000 && lines().length < n; tries++) await new Promise((r) => setImmediate(r));
  }

  it('writes a warning at once, after the access-log lines logged before it, in order', async () => {
    const output = stdoutLogOutput(fd);
    const logger = createLogger('info', output);
    for (let i = 0; i < 3; i++) logger.info({ i, method: 'POST', status: 200 }, 'request');
    logger.warn({ i: 3 }, 'payment provider slow');
    await untilLines(4);
    expect(lines().map((l) => [l.msg, l.i])).to.deep.equal([
      ['request', 0],
      ['request', 1],
      ['request', 2],
      ['payment provider slow', 3],
    ]);
  });

  it('holds access-log lines for a batch and writes every one on flush (as shutdown does)', async () => {
    const output = stdoutLogOutput(fd);
    const logger = createLogger('info', output);
    for (let i = 0; i < 50; i++) logger.info({ i, method: 'POST', status: 200 }, 'request');
    // Far below the batch size and within the flush interval: nothing written yet.
    await new Promise((r) => setImmediate(r));
    expect(lines()).to.have.length(0);
    expect(await output.flushWithin(5_000)).to.equal(true);
    expect(lines().map((l) => l.i)).to.deep.equal([...Array(50).keys()]);
  });
});
