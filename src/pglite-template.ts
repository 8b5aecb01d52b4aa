// The data directory a first start on PGlite begins from (issue 31). Creating one ran PGlite's initdb (a second
// PostgreSQL instance in WebAssembly) and then every migration: about three quarters of a 17 s first `npm start`.
// bin/build.js does that once, when dist/ is built, and leaves the closed directory beside the bundle; a new data
// directory is then a file copy of it. It is used only when it was made by this PGlite version with exactly the
// migrations this build has (its facts file says so); otherwise, and when running from source (no template beside
// src/), a new directory is made the long way.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { openPglite } from './db.ts';
import { type EventLogKind, migrateLatest, migrationSourceFor } from '../migrations/index.ts';

/** Where the template and its facts file are found: beside the bundle (dist/); never beside src/. */
const DIR = path.join(import.meta.dirname, 'pglite-template');
const factsFile = (dir: string) => `${dir}.json`;

/** What a template was made with: the PGlite version and the migrations applied, in order. */
interface Facts {
  pglite: string;
  migrations: string[];
}

async function factsNow(eventLog: EventLogKind): Promise<Facts> {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as { version: string };
  return { pglite: pkg.version, migrations: await migrationSourceFor(eventLog).getMigrations([]) };
}

/** The template directory (beside the bundle unless `dir` says), or undefined when none fits this build and this event log. */
export async function pgliteTemplate(eventLog: EventLogKind, dir = DIR): Promise<string | undefined> {
  let facts: string;
  try {
    facts = fs.readFileSync(factsFile(dir), 'utf8');
  } catch {
    return undefined;
  }
  return facts === JSON.stringify(await factsNow(eventLog)) ? dir : undefined;
}

/** Makes the template in `outDir` (dist/): a migrated, empty database for the PostgreSQL log, closed. */
export async function writePgliteTemplate(outDir: string): Promise<void> {
  const dir = path.join(outDir, 'pglite-template');
  fs.rmSync(factsFile(dir), { force: true });
  fs.rmSync(dir, { recursive: true, force: true });
  const db = await openPglite(dir);
  try {
    await migrateLatest(db.knex, 'postgres');
  } finally {
    await db.close();
  }
  // Written last: a template without its facts file is never used.
  fs.writeFileSync(factsFile(dir), JSON.stringify(await factsNow('postgres')));
}
