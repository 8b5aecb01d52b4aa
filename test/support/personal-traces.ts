// Where a personal value is still held (the erasure tests of issue 32 search for it): database tables and files.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TestService } from './app.ts';

/** Every table of the database whose rows, as text, contain `value`, sorted (the key table holds keys, never values). */
export async function tablesHolding(svc: TestService, value: string): Promise<string[]> {
  const tables = (await svc.app.knex('information_schema.tables').where({ table_schema: 'public', table_type: 'BASE TABLE' }).select('table_name')) as { table_name: string }[];
  const found: string[] = [];
  for (const { table_name: t } of tables) {
    const hit = await svc.app.knex.raw(`select 1 from "${t}" as r where r::text like ? limit 1`, [`%${value}%`]);
    if ((hit.rows as unknown[]).length > 0) found.push(t);
  }
  return found.sort();
}

/** Files under `dir` whose name or bytes contain `value`. */
export function filesHolding(dir: string, value: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (name.includes(value)) out.push(p);
      if (statSync(p).isDirectory()) walk(p);
      else if (readFileSync(p).includes(value)) out.push(p);
    }
  };
  walk(dir);
  return out;
}
