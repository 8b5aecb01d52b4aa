// Reads of integration clients and installations (written by projections/integrations/integrations.ts).
import type { Knex } from 'knex';
import type { ClientDoc, InstallDoc } from '../../projections/integrations/integrations.ts';
import { hashSecret, sameHash } from '../../secrets.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a syntactically valid UUID (ids from query strings and headers are checked before they reach SQL). */
export function isUuid(s: unknown): s is string {
  return typeof s === 'string' && UUID.test(s);
}

/** A registered client, or null (also for a malformed id). */
export async function getClient(knex: Knex, clientId: string): Promise<ClientDoc | null> {
  if (!isUuid(clientId)) return null;
  const row = await knex('integration_clients').where({ id: clientId }).first('doc');
  return row ? (row.doc as ClientDoc) : null;
}

/** Every registered client, by name. */
export async function listClients(knex: Knex): Promise<ClientDoc[]> {
  const rows = (await knex('integration_clients').orderBy(['name', 'id']).select('doc')) as { doc: ClientDoc }[];
  return rows.map((r) => r.doc);
}

/** True when `secret` matches one of the client's valid secrets (every candidate compared, in constant time). */
export function clientSecretMatches(client: ClientDoc, secret: string): boolean {
  const presented = hashSecret(secret);
  let ok = false;
  for (const s of client.secrets) if (s.revoked_at === null && sameHash(s.secret_hash, presented)) ok = true;
  return ok;
}

/** The active installation whose API key hashes to `keyHash`, or null. */
export async function activeInstallByKeyHash(knex: Knex, keyHash: string): Promise<InstallDoc | null> {
  const row = await knex('integration_installs').where({ api_key_hash: keyHash, status: 'active' }).first('doc');
  return row ? (row.doc as InstallDoc) : null;
}

/** One installation (any status), or null. */
export async function getInstall(knex: Knex, id: string): Promise<InstallDoc | null> {
  if (!isUuid(id)) return null;
  const row = await knex('integration_installs').where({ id }).first('doc');
  return row ? (row.doc as InstallDoc) : null;
}
