// docs/operations.md's configuration reference is made from the config schema (src/config.ts) and the meanings in
// src/config-reference.ts: a variable added, removed or given another default without the document fails here.
// To regenerate: UPDATE_DOCS=1 npx mocha --no-config --node-option import=tsx test/docs/configuration-reference.test.ts
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { configReference } from '../../src/config-reference.ts';
import { ROOT } from '../support/process.ts';

const DOC = path.join(ROOT, 'docs/operations.md');
const HEADING = '## Configuration reference\n';

describe('docs/operations.md configuration reference', () => {
  it('is the one generated from the config schema', () => {
    const text = fs.readFileSync(DOC, 'utf8');
    const at = text.indexOf(HEADING);
    expect(at, 'docs/operations.md has a "## Configuration reference" section').to.be.greaterThan(-1);
    const start = at + HEADING.length;
    const next = text.indexOf('\n## ', start);
    const end = next === -1 ? text.length : next + 1;
    const expected = `\n${configReference()}`;
    if (process.env.UPDATE_DOCS === '1') fs.writeFileSync(DOC, text.slice(0, start) + expected + text.slice(end));
    else expect(text.slice(start, end), 'stale: regenerate with UPDATE_DOCS=1 (see this file)').to.equal(expected);
  });
});
