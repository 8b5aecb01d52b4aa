#!/usr/bin/env node
// Bundles the CLI into dist/ with esbuild (run by `npm ci` through `prepare`, and before `npm start`): a command
// then starts without compiling TypeScript at run time (about a third of the CPU of `tsx src/main.ts`).
// Packages stay in node_modules; lazily imported modules (what a command does, S3, EventStoreDB) become chunks
// loaded only when used: `--version` and `--help` load the command descriptions and little else.
// Does nothing when dist/ is as new as the sources. `npm test` still tests src/ through tsx.
import process from 'node:process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { BUILD_OPTIONS, DIST, ROOT, STAMP, compiledIsFresh } from './compiled.js';

/** Files the code reads beside itself (`import.meta.dirname`): in the bundle that directory is dist/. */
const BESIDE = [
  ['src/http/pages/console/assets', 'assets'],
  ['src/vehicle-data/sample', 'sample'],
];

if (compiledIsFresh() && !process.argv.includes('--force')) process.exit(0);
const started = Date.now();
fs.rmSync(DIST, { recursive: true, force: true });
try {
  await build({ ...BUILD_OPTIONS, outdir: DIST });
} catch {
  fs.rmSync(DIST, { recursive: true, force: true });
  process.stderr.write('core-server: building dist/ failed; the CLI runs the TypeScript directly (slower start)\n');
  process.exit(1);
}
for (const [from, to] of BESIDE) fs.cpSync(path.join(ROOT, from), path.join(DIST, to), { recursive: true });
fs.writeFileSync(STAMP, `${new Date().toISOString()}\n`);
process.stderr.write(`core-server: built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
