// Read-your-writes is declared, not hand-made: a handler names no position and no projection to wait for. The
// operation declares its `readModels`; `ctx.readYourWrites()` waits for them where the call's commands left the log.
// This reads src/commands as written (TypeScript AST, source order) and fails on a read-model read after an append
// with no `ctx.readYourWrites()` between, on a wait without a declaration (or a declaration nobody waits for), and on
// a hand-made wait.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect } from 'chai';

const SRC = path.resolve(import.meta.dirname, '../../src');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

const rel = (f: string) => path.relative(SRC, f).split(path.sep).join('/');
const sources = files(SRC).map((f) => ({ file: rel(f), text: fs.readFileSync(f, 'utf8') }));

/** What a call does, as far as read-your-writes goes. */
type Step = { kind: 'append' } | { kind: 'wait' } | { kind: 'read'; name: string; line: number } | { kind: 'call'; name: string; line: number };

/** A function of src/commands (or an operation's handler) and the steps of its body in the order they run. */
interface Unit {
  file: string;
  name: string;
  steps: Step[];
}

/** An operation declared in src/commands: whether it declares `readModels`, and the unit of its handler. */
interface Declared {
  id: string;
  file: string;
  readModels: boolean;
  handler: string;
}

/** The read-your-writes summary of a function, as its callers see it. */
interface Summary {
  /** Reads a read model before any wait of its own. */
  readsFirst: boolean;
  /** Calls ctx.readYourWrites() (so whatever its caller wrote before is waited for). */
  waits: boolean;
  /** Ends with writes not waited for. */
  dirty: boolean;
}

/** The calls in `node`, arguments before the call that takes them (the order they run in). */
function steps(node: ts.Node, sf: ts.SourceFile, queryImports: Set<string>): Step[] {
  const out: Step[] = [];
  const visit = (n: ts.Node): void => {
    ts.forEachChild(n, visit);
    if (!ts.isCallExpression(n)) return;
    const callee = n.expression;
    const line = sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
    if (ts.isPropertyAccessExpression(callee)) {
      const name = callee.name.text;
      if (name === 'readYourWrites') out.push({ kind: 'wait' });
      // A bound command handler's run, or a raw append.
      else if (name === 'run' || name === 'appendToStream') out.push({ kind: 'append' });
      else out.push({ kind: 'call', name, line });
    } else if (ts.isIdentifier(callee)) {
      out.push(queryImports.has(callee.text) ? { kind: 'read', name: callee.text, line } : { kind: 'call', name: callee.text, line });
    }
  };
  visit(node);
  return out;
}

function bodyOf(n: ts.Node | undefined): ts.Node | undefined {
  if (!n) return undefined;
  if (ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) return n.body;
  return undefined;
}

/** The functions and operations of src/commands. */
function commandsCode(): { units: Unit[]; declared: Declared[]; declarations: number } {
  const units: Unit[] = [];
  const declared: Declared[] = [];
  let declarations = 0;
  for (const s of sources.filter((x) => x.file.startsWith('commands/'))) {
    const sf = ts.createSourceFile(s.file, s.text, ts.ScriptTarget.ES2022, true);
    declarations += s.text.split('operation({').length - 1;
    const queryImports = new Set<string>();
    const objects = new Map<string, ts.ObjectLiteralExpression>();
    for (const st of sf.statements) {
      if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier) && st.moduleSpecifier.text.includes('/queries/')) {
        const named = st.importClause?.namedBindings;
        if (named && ts.isNamedImports(named)) for (const e of named.elements) if (!e.isTypeOnly) queryImports.add(e.name.text);
      }
    }
    const unit = (name: string, body: ts.Node | undefined) => {
      if (body) units.push({ file: s.file, name, steps: steps(body, sf, queryImports) });
    };
    const operations: ts.ObjectLiteralExpression[] = [];
    for (const st of sf.statements) {
      if (ts.isFunctionDeclaration(st) && st.name) unit(st.name.text, st.body);
      if (!ts.isVariableStatement(st)) continue;
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name) || !d.initializer) continue;
        const init = d.initializer;
        unit(d.name.text, bodyOf(init));
        if (ts.isObjectLiteralExpression(init)) objects.set(d.name.text, init);
        if (ts.isCallExpression(init) && ts.isIdentifier(init.expression) && init.expression.text === 'operation') {
          const arg = init.arguments[0];
          if (arg && ts.isObjectLiteralExpression(arg)) operations.push(arg);
        }
      }
    }
    for (const op of operations) {
      // The declaration's own properties, and those of a same-file object it spreads (shared definitions).
      const props = op.properties.flatMap((p) => (ts.isSpreadAssignment(p) && ts.isIdentifier(p.expression) ? [...(objects.get(p.expression.text)?.properties ?? [])] : [p]));
      const named = (n: string) => props.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === n);
      const idProp = named('id');
      const idInit = idProp && ts.isPropertyAssignment(idProp) ? idProp.initializer : undefined;
      const idText = idInit && ts.isAsExpression(idInit) ? idInit.expression : idInit;
      const id = idText && ts.isStringLiteral(idText) ? idText.text : '?';
      const handle = named('handle');
      let handler = `${id} handle`;
      if (handle && ts.isMethodDeclaration(handle)) unit(handler, handle.body);
      else if (handle && ts.isPropertyAssignment(handle) && ts.isIdentifier(handle.initializer)) handler = handle.initializer.text;
      else if (handle && ts.isPropertyAssignment(handle)) unit(handler, bodyOf(handle.initializer));
      declared.push({ id, file: s.file, readModels: named('readModels') !== undefined, handler });
    }
  }
  return { units, declared, declarations };
}

/** Runs a unit's steps with the callees' summaries: its own summary, and each read made while writes are not waited for. */
function simulate(unit: Unit, summaries: Map<string, Summary>): Summary & { offences: string[] } {
  let dirty = false;
  let waits = false;
  let readsFirst = false;
  const offences: string[] = [];
  const read = (what: string, line: number) => {
    if (dirty) offences.push(`${unit.file}:${line} ${unit.name} reads ${what} after appending, with no ctx.readYourWrites() between`);
    if (!waits) readsFirst = true;
  };
  for (const step of unit.steps) {
    if (step.kind === 'wait') {
      dirty = false;
      waits = true;
    } else if (step.kind === 'append') dirty = true;
    else if (step.kind === 'read') read(step.name, step.line);
    else {
      const callee = summaries.get(step.name);
      if (!callee) continue;
      if (callee.readsFirst) read(`${step.name}()`, step.line);
      if (callee.waits) {
        dirty = false;
        waits = true;
      }
      if (callee.dirty) dirty = true;
    }
  }
  return { readsFirst, waits, dirty, offences };
}

/** Every unit's summary, to a fixed point (a unit's summary depends on its callees'). */
function summarize(units: Unit[]): Map<string, Summary> {
  const summaries = new Map<string, Summary>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const u of units) {
      const { readsFirst, waits, dirty } = simulate(u, summaries);
      const was = summaries.get(u.name) ?? { readsFirst: false, waits: false, dirty: false };
      // Two functions of one name (in different files) count as one: what either does.
      const now = { readsFirst: was.readsFirst || readsFirst, waits: was.waits || waits, dirty: was.dirty || dirty };
      if (now.readsFirst !== was.readsFirst || now.waits !== was.waits || now.dirty !== was.dirty || !summaries.has(u.name)) changed = true;
      summaries.set(u.name, now);
    }
  }
  return summaries;
}

describe('architecture: read-your-writes', () => {
  const { units, declared, declarations } = commandsCode();
  const summaries = summarize(units);

  it('finds every operation declared in src/commands', () => {
    expect(declared.length).to.equal(declarations);
    expect(declared.map((d) => d.id)).to.include.members(['billing.notes.update', 'async-imports.prepare', 'billing.customers.attachments.insert']);
  });

  it('no handler in src/commands reads a read model after appending without ctx.readYourWrites() first', () => {
    expect(units.flatMap((u) => simulate(u, summaries).offences)).to.deep.equal([]);
  });

  it('an operation declares readModels exactly when its handler waits for them (ctx.readYourWrites())', () => {
    const waits = (d: Declared) => summaries.get(d.handler)?.waits ?? false;
    expect(declared.filter((d) => waits(d) && !d.readModels).map((d) => `${d.id} (${d.file}) waits for its writes but declares no readModels`)).to.deep.equal([]);
    expect(declared.filter((d) => !waits(d) && d.readModels).map((d) => `${d.id} (${d.file}) declares readModels but never waits for them`)).to.deep.equal([]);
    expect(declared.filter(waits).length).to.be.greaterThan(40);
  });

  it('nothing in src waits for read models by hand: a handler names no position or projection, other waits go through pipeline/read-models.ts', () => {
    // The seed waits at start-up with its own bound (before the API is up); a CLI command, before it exits, for the
    // projector of another process (cli/settle.ts: it must not apply events that process owns).
    const allowed = (f: string) => f === 'pipeline/read-models.ts' || f.startsWith('projections/engine/') || f === 'seed.ts' || f === 'cli/settle.ts';
    const offenders = sources.filter((s) => !allowed(s.file) && /\.waitFor\(/.test(s.text)).map((s) => s.file);
    expect(offenders).to.deep.equal([]);
  });
});
