// The shape stays true: api binds only what it is handed, read-model tables stay with their projection and query module, no `!` in src.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect } from 'chai';
import { projections } from '../../src/areas/index.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

const rel = (f: string) => path.relative(SRC, f).split(path.sep).join('/');
const sources = files(SRC).map((f) => ({ file: rel(f), text: fs.readFileSync(f, 'utf8') }));

/** Module specifiers a file imports (static imports and re-exports). */
function importsOf(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  return sf.statements.flatMap((s) => ((ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier) ? [s.moduleSpecifier.text] : []));
}

describe('architecture', () => {
  it('src/api imports no command, query, projection, worker, area or storage adapter: it binds the registry it is handed', () => {
    const forbidden = /^(commands|queries|projections|workers|areas|storage)\/|^eventstore\/(postgres|esdb)\.ts$/;
    const offenders = sources
      .filter((s) => s.file.startsWith('api/'))
      .flatMap((s) => importsOf(s.file, s.text).filter((m) => m.startsWith('.')).map((m) => ({ from: s.file, to: rel(path.resolve(SRC, path.dirname(s.file), m)) })))
      .filter((i) => forbidden.test(i.to));
    expect(offenders).to.deep.equal([]);
  });

  it('a read-model table is named only by its projection and its query module (same name on both sides)', () => {
    const offenders: string[] = [];
    for (const p of projections) {
      const [area, rest] = p.name.includes('.') ? [p.name.slice(0, p.name.indexOf('.')), p.name.slice(p.name.indexOf('.') + 1)] : [p.name, p.name];
      const owners = [`projections/${area}/${rest}.ts`, `queries/${area}/${rest}.ts`];
      expect(sources.map((s) => s.file), `projection ${p.name} lives in ${owners[0]}`).to.include(owners[0]);
      for (const table of p.tables) {
        // knex('table'), .join('table as t'), or raw SQL naming it.
        const named = new RegExp(`\\(\\s*['"\`]${table}( as \\w+)?['"\`]|\\b(from|join|into|update)\\s+"?${table}\\b`);
        for (const s of sources) if (named.test(s.text) && !owners.includes(s.file)) offenders.push(`${table} in ${s.file}`);
      }
    }
    expect(offenders).to.deep.equal([]);
  });

  it('src has no non-null assertions (`x!`)', () => {
    const found: string[] = [];
    for (const s of sources) {
      const sf = ts.createSourceFile(s.file, s.text, ts.ScriptTarget.ES2022, true);
      const visit = (n: ts.Node): void => {
        if (ts.isNonNullExpression(n)) found.push(`${s.file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
    expect(found).to.deep.equal([]);
  });
});
