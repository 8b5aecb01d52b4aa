// `npm test`'s mocha part: the whole suite with every test database's events collected (test/support/suite-log.ts),
// then, as its last step, the check that runs the log rewrite on that collection (whole-suite.ts, a spec file per backend run in parallel; issue 32).
// Test files run in parallel worker processes (every suite opens databases of its own), CORE_TEST_JOBS of them
// (default: the cores, at least 2: much of a test's time is spent waiting on the database or a browser), the
// slowest first so that no worker is left with a long file at the end.
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
const jobs = Number(process.env.CORE_TEST_JOBS) || Math.max(2, os.availableParallelism());

// Each takes a minute or more (measured serially: 50 to 130 s); the rest take seconds.
const SLOWEST = ['test/process/crash.test.ts', 'test/cli/cli.test.ts', 'test/http/bad-input.test.ts', 'test/http/fuzz.test.ts', 'test/projections/events-property.test.ts'];

/** Every test file (the config's spec), the slowest first. */
function testFiles(): string[] {
  const all = fs
    .readdirSync('test', { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join('test', f))
    .sort();
  return [...SLOWEST.filter((f) => all.includes(f)), ...all.filter((f) => !SLOWEST.includes(f))];
}

// .mocharc.json's options but its spec: mocha adds a config's spec to the files named, and this run names them (in order).
const { spec: _spec, ...options } = JSON.parse(fs.readFileSync('.mocharc.json', 'utf8')) as Record<string, unknown>;
const optionArgs = Object.entries(options).flatMap(([k, v]) => (v === true ? [`--${k}`] : [v].flat().flatMap((x) => [`--${k}`, String(x)])));

let code = 1;
try {
  code = run(['--no-config', ...optionArgs, '--parallel', '--jobs', String(jobs), ...(args.length > 0 ? args : testFiles())]);
  // A failed test still wrote its events: the collection is the whole suite's either way.
  if (args.length > 0) console.log('\nthe whole-suite log rewrite check (test/suite-log/whole-suite.ts) was not run: it needs the whole suite\'s events (npm test with no arguments)');
  else code = Math.max(code, run(['--config', '.mocharc.suite-log.json']));
} finally {
  if (!kept) fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
