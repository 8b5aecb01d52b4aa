// The tables a blue/green rebuild fills (see blue-green.ts): empty copies of a projection's tables in a schema of its
// own, under the same names (so the projection's code writes them unchanged, through the search path), with the same
// columns, checks, keys and indexes (so the swap leaves the catalog as it was), and the swap itself.
import type { Knex } from 'knex';
import type { LogPosition, RecordedEvent } from '../../eventstore/port.ts';
import type { BulkApplier, Projection } from '../projection.ts';

/** The checkpoint row of the version being built beside projection `name`. */
export function nextName(name: string): string {
  return `${name}@next`;
}

/** The schema holding the tables being built for projection `name`. */
export function shadowSchema(name: string): string {
  return `rebuild_${name.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`.slice(0, 63);
}

const ident = (id: string) => `"${id.replace(/"/g, '""')}"`;

/** The schema the read-model tables live in (the first of the search path). */
export async function liveSchema(knex: Knex): Promise<string> {
  const res = await knex.raw('select current_schema() as s');
  return (res.rows[0] as { s: string }).s;
}

/**
 * Creates empty copies of `p`'s tables in its shadow schema and its checkpoint row at the start of the log,
 * replacing an unfinished earlier build. Keys and indexes get the live ones' names (LIKE would name them anew).
 * Only the unique ones are made now (upserts and lookups by key need them); the others are built once the build has
 * caught up (indexShadow): a replay writes its documents several times when they outgrow memory, and every write
 * into five indexes cost about three times one into the key alone (issue 31's rebuild of 2M events).
 */
export async function createShadow(trx: Knex.Transaction, p: Projection, live: string, now: Date): Promise<void> {
  const schema = ident(shadowSchema(p.name));
  await trx.raw(`drop schema if exists ${schema} cascade`);
  await trx.raw(`create schema ${schema}`);
  for (const t of p.tables) {
    await trx.raw(`create table ${schema}.${ident(t)} (like ${ident(live)}.${ident(t)} including all excluding indexes)`);
    await copyIndexes(trx, p.name, t, live, true);
  }
  await trx('projection_checkpoints').where({ name: nextName(p.name) }).delete();
  await trx('projection_checkpoints').insert({ name: nextName(p.name), version: p.version, position: null, updated_at: now });
}

/** Builds the indexes of `p`'s shadow tables that createShadow left for later (those it has already are kept). */
export async function indexShadow(trx: Knex.Transaction, p: Projection, live: string): Promise<void> {
  for (const t of p.tables) await copyIndexes(trx, p.name, t, live, false);
}

// Gives the shadow table `t` of projection `name` the live table's unique indexes (`unique`) or the others, under the
// live names, skipping those it has.
async function copyIndexes(trx: Knex.Transaction, name: string, t: string, live: string, unique: boolean): Promise<void> {
  const schema = shadowSchema(name);
  const table = `${ident(schema)}.${ident(t)}`;
  const res = await trx.raw(
    `select c.relname as name, con.conname, pg_get_constraintdef(con.oid) as condef, pg_get_indexdef(i.indexrelid) as indexdef
     from pg_index i join pg_class c on c.oid = i.indexrelid
     left join pg_constraint con on con.conindid = i.indexrelid and con.conrelid = i.indrelid and con.contype in ('p', 'u', 'x')
     where i.indrelid = ?::regclass and (i.indisunique or con.conname is not null) = ?
       and not exists (select 1 from pg_class s where s.relname = c.relname and s.relnamespace = ?::regnamespace)
     order by c.relname`,
    [`${ident(live)}.${ident(t)}`, unique, ident(schema)],
  );
  for (const r of res.rows as { name: string; conname: string | null; condef: string | null; indexdef: string }[]) {
    if (r.conname) {
      await trx.raw(`alter table ${table} add constraint ${ident(r.conname)} ${r.condef}`);
      continue;
    }
    const m = /^(CREATE (?:UNIQUE )?INDEX) \S+ ON (?:ONLY )?\S+ (USING .*)$/s.exec(r.indexdef);
    if (!m) throw new Error(`cannot copy index ${r.name} of ${t}: ${r.indexdef}`);
    await trx.raw(`${m[1]} ${ident(r.name)} on ${table} ${m[2]}`);
  }
}

/** Makes `trx` write the shadow tables of projection `name`: they come first on its search path, the live schema after. */
export async function writeShadow(trx: Knex.Transaction, name: string, live: string): Promise<void> {
  await trx.raw(`select set_config('search_path', ?, true)`, [`${ident(shadowSchema(name))}, ${ident(live)}`]);
}

/**
 * `p` writing its shadow tables: the same code and tables, its own checkpoint row. `apply`, and bulk replay when `p`
 * offers it (a build is a replay from the start of the log: without it, each batch of a 200k-event build loaded,
 * folded and upserted its documents in a transaction of its own, a quarter of the bulk speed). Both write in the
 * runner's transaction with the search path set; the bulk fold reads stored rows from the shadow schema by name.
 * Not `stage`: it reads outside any transaction, through the search path.
 */
export function shadowProjection(p: Projection, live: string): Projection {
  const handles = p.handles?.bind(p);
  const bulk = p.bulk?.bind(p);
  return {
    name: nextName(p.name),
    version: p.version,
    tables: p.tables,
    ...(handles ? { handles } : {}),
    async apply(trx: Knex.Transaction, events: RecordedEvent[]) {
      await writeShadow(trx, p.name, live);
      await p.apply(trx, events);
    },
    ...(bulk
      ? {
          bulk(knex: Knex, fresh: boolean): BulkApplier {
            const inner = bulk(knex, fresh, shadowSchema(p.name));
            return {
              fold: (events) => inner.fold(events),
              pending: () => inner.pending(),
              async write(trx) {
                await writeShadow(trx, p.name, live);
                await inner.write(trx);
              },
            };
          },
        }
      : {}),
  };
}

/**
 * Puts the shadow tables of `p` in place of the live ones, drops the old, and moves the live checkpoint to `at`
 * (where the shadow is), in the caller's transaction: readers wait for it, then read the new tables.
 */
export async function swapShadow(trx: Knex.Transaction, p: Projection, live: string, at: LogPosition | null, now: Date): Promise<void> {
  const schema = ident(shadowSchema(p.name));
  for (const t of p.tables) {
    await trx.raw(`drop table ${ident(live)}.${ident(t)}`);
    await trx.raw(`alter table ${schema}.${ident(t)} set schema ${ident(live)}`);
  }
  await trx.raw(`drop schema ${schema}`);
  await trx('projection_checkpoints').where({ name: nextName(p.name) }).delete();
  await trx('projection_checkpoints').where({ name: p.name }).update({ version: p.version, position: at, failure: null, updated_at: now });
}
