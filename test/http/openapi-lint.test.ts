// Both OpenAPI documents pass Spectral (`spectral:oas`) and Redocly (`recommended`) with no error and no warning
// (.spectral.yaml and redocly.yaml say which rule is off and why). The linters run from node_modules, offline.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { apiDocuments } from '../../clients/typescript/documents.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);
// No update checks or telemetry: CI has no network beyond the registries.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' };

/** Runs a linter that exits non-zero on findings, and returns its stdout either way. */
async function output(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args, { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    if (!e.stdout) throw new Error(`${path.basename(file)} failed: ${e.stderr ?? String(err)}`);
    return e.stdout;
  }
}

describe('OpenAPI documents pass the linters', function () {
  this.timeout(180_000);
  let dir: string;
  let files: string[];
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
    files = Object.entries(apiDocuments()).map(([surface, doc]) => {
      const file = path.join(dir, `${surface}.json`);
      fs.writeFileSync(file, JSON.stringify(doc, null, 2));
      return file;
    });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('Spectral spectral:oas finds nothing, not even a hint', async () => {
    const out = await output(bin('spectral'), ['lint', ...files, '--ruleset', '.spectral.yaml', '--format', 'json', '--fail-severity', 'hint', '--quiet']);
    const results = JSON.parse(out.trim() || '[]') as { code: string; message: string; source: string; path: string[] }[];
    expect(results.map((r) => `${path.basename(r.source)} ${r.code} at ${r.path.join('.')}: ${r.message}`)).to.deep.equal([]);
  });

  it('Redocly recommended finds no error and no warning', async () => {
    for (const file of files) {
      const out = await output(bin('redocly'), ['lint', file, '--config', 'redocly.yaml', '--format', 'json']);
      const report = JSON.parse(out.slice(out.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
      expect(report.problems.map((p) => `${path.basename(file)} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).to.deep.equal([]);
      expect(report.totals, file).to.include({ errors: 0, warnings: 0 });
    }
  });
});
