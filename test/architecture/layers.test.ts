// The shape stays true: no import cycles, a pure domain, projections and the contract in their lanes, HTTP only in src/http, read-model tables stay with their projection and query module, no `!` in src.
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

/** Every import of a file: the module as written, whether it is type-only, and the src-relative target of a local one. */
function edgesOf(file: string, text: string): { module: string; to: string | null; typeOnly: boolean }[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  return sf.statements.flatMap((s) => {
    if (!(ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) || !s.moduleSpecifier || !ts.isStringLiteral(s.moduleSpecifier)) return [];
    const module = s.moduleSpecifier.text;
    const typeOnly = ts.isImportDeclaration(s) ? s.importClause?.isTypeOnly === true : s.isTypeOnly;
    return [{ module, to: module.startsWith('.') ? rel(path.resolve(SRC, path.dirname(file), module)) : null, typeOnly }];
  });
}

const graph = new Map(sources.map((s) => [s.file, edgesOf(s.file, s.text)]));

/** Imports of files under `dir` that `allowed` refuses, as `from -> module`. */
function offendersIn(dir: string, allowed: (e: { module: string; to: string | null; typeOnly: boolean }, from: string) => boolean): string[] {
  return [...graph].filter(([f]) => f.startsWith(dir)).flatMap(([f, edges]) => edges.filter((e) => !allowed(e, f)).map((e) => `${f} -> ${e.to ?? e.module}`));
}

/** Strongly connected groups of more than one file (Tarjan): each is an import cycle. */
function cycles(): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const { to } of graph.get(v) ?? []) {
      if (to === null || !graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v) ?? 0, index.get(to) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      group.push(w);
      if (w === v) break;
    }
    if (group.length > 1) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

// Modules a pure decider may use besides the domain itself: ids (uuid v5/v7 from the given clock), the clock's type, the currency table.
const PURE = new Set(['ids.ts', 'clock.ts', 'iso4217.ts']);

describe('architecture', () => {
  it('src has no import cycles (type imports count: a cycle is a layering mistake either way)', () => {
    expect(cycles()).to.deep.equal([]);
  });

  it('src/domain imports nothing with I/O: only the domain, zod, uuid, node:crypto and pure helpers', () => {
    expect(offendersIn('domain/', (e) => (e.to === null ? ['zod', 'uuid', 'node:crypto'].includes(e.module) : e.to.startsWith('domain/') || PURE.has(e.to)))).to.deep.equal([]);
  });

  it("an area's projections import only the domain, the event-store port, the projection engine and knex", () => {
    const areaProjection = (f: string) => f.startsWith('projections/') && !/^projections\/(engine|documents)\//.test(f) && f.split('/').length > 2;
    const offenders = [...graph]
      .filter(([f]) => areaProjection(f))
      .flatMap(([f, edges]) =>
        edges
          .filter((e) => !(e.to === null ? ['knex', 'zod'].includes(e.module) : e.to.startsWith('domain/') || e.to.startsWith('projections/') || e.to === 'eventstore/port.ts' || PURE.has(e.to)))
          .map((e) => `${f} -> ${e.to ?? e.module}`),
      );
    expect(offenders).to.deep.equal([]);
  });

  it('src/contract (declarations, schemas, caller types) imports only the domain, zod and the context types', () => {
    expect(offendersIn('contract/', (e) => (e.to === null ? ['zod', 'pino'].includes(e.module) && (e.module === 'zod' || e.typeOnly) : e.to.startsWith('contract/') || e.to.startsWith('domain/') || (e.to === 'context.ts' && e.typeOnly) || PURE.has(e.to)))).to.deep.equal([]);
  });

  it('only src/http (with its pages) and the composition root know HTTP (express, node:http)', () => {
    const knowsHttp = (e: { module: string }) => ['express', 'node:http', 'node:https'].includes(e.module);
    const offenders = [...graph].filter(([f]) => !f.startsWith('http/') && !['app.ts', 'main.ts'].includes(f)).flatMap(([f, edges]) => edges.filter(knowsHttp).map((e) => `${f} -> ${e.module}`));
    expect(offenders).to.deep.equal([]);
  });

  it('nothing imports a concrete adapter (event log, object store, payment or vehicle-data provider) but the composition root', () => {
    const adapter = /^(eventstore\/(postgres|esdb)|storage\/(s3|file)|payments\/sandbox|vehicle-data\/sandbox|mail\/smtp)\.ts$/;
    const folder = (f: string) => f.split('/')[0];
    // Each adapter's own factory sits beside it; a handed adapter may be named by type; the sandbox provider serves its own pages.
    const ownHttpSide = new Set(['http/pages/sandbox.ts -> payments/sandbox.ts']);
    const offenders = [...graph]
      .filter(([f]) => !['app.ts', 'main.ts'].includes(f))
      .flatMap(([f, edges]) => edges.filter((e) => e.to !== null && !e.typeOnly && adapter.test(e.to) && folder(e.to) !== folder(f)).map((e) => `${f} -> ${e.to}`))
      .filter((o) => !ownHttpSide.has(o));
    expect(offenders).to.deep.equal([]);
  });

  it('src/http imports no command, query, projection, worker, area or storage adapter: it binds the registry, lookups and store it is handed', () => {
    // Authenticators are handed their lookups; the file store's signed routes are handed the store (by what they need of it).
    const forbidden = /^(commands|projections|queries|workers|areas)\/|^eventstore\/(postgres|esdb)\.ts$|^storage\//;
    const offenders = offendersIn('http/', (e) => e.to === null || !forbidden.test(e.to));
    // Pages, the console and the webhook name operations by their typed declarations (areas/operations.ts) and call them through invoke.
    const declarations = /-> areas\/operations\.ts$/;
    expect(offenders.filter((o) => !declarations.test(o))).to.deep.equal([]);
  });

  it('only src/pipeline makes event metadata or a command context: every surface calls operations through invoke', () => {
    // Metadata is stamped in one place: no correlation or causation id is written elsewhere (the event stores only map them).
    const offenders: string[] = [];
    for (const s of sources.filter((x) => !x.file.startsWith('pipeline/') && !x.file.startsWith('eventstore/'))) {
      const sf = ts.createSourceFile(s.file, s.text, ts.ScriptTarget.ES2022, true);
      const visit = (n: ts.Node): void => {
        if (ts.isPropertyAssignment(n) && ['correlation_id', 'causation_id'].includes(n.name.getText(sf))) offenders.push(`${s.file}: writes ${n.name.getText(sf)}`);
        if (ts.isCallExpression(n) && ['eventMetadata', 'systemCommandContext'].includes(n.expression.getText(sf))) offenders.push(`${s.file}: calls ${n.expression.getText(sf)}`);
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
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
