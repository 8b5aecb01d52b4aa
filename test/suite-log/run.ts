// `npm test`'s mocha part: the whole suite with every test database's events collected (test/support/suite-log.ts),
// then, as its last step, the check that runs the log rewrite on that collection (whole-suite.check.ts, issue 32).
// Arguments are passed to the first run; with any (a subset of the files), the check is not run, and says so: its
// collection would not be the whole suite's. CORE_SUITE_LOG_DIR, when set, names the collection's directory and keeps
// it afterwards (to run the check alone: `CORE_SUITE_LOG_DIR=<dir> npx mocha --config .mocharc.suite-log.json`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const mocha = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
const args = process.argv.slice(2);
const kept = process.env.CORE_SUITE_LOG_DIR;
const dir = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), 'core-suite-log-'));
const env = { ...process.env, CORE_SUITE_LOG_DIR: dir };
const run = (argv: string[]): number => spawnSync(process.execPath, [mocha, ...argv], { stdio: 'inherit', env }).status ?? 1;

let code = 1;
try {
  code = run(args);
  // A failed test still wrote its events: the collection is the whole suite's either way.
  if (args.length > 0) console.log('\nthe whole-suite log rewrite check (test/suite-log/whole-suite.check.ts) was not run: it needs the whole suite\'s events (npm test with no arguments)');
  else code = Math.max(code, run(['--config', '.mocharc.suite-log.json']));
} finally {
  if (!kept) fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
