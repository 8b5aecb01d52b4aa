// `core-server admin client ...`: register integration clients, rotate and revoke their secrets, list them.
import { settle } from './settle.ts';
import type { Command } from 'commander';
import type { App } from '../app.ts';
import { systemAuth } from '../context.ts';
import type { Caller } from '../contract/caller.ts';
import { operationOf } from './lazy.ts';
import { integrationsErrors } from '../domain/integrations/errors.ts';
import { type Scope, SCOPES, isScope } from '../domain/integrations/scopes.ts';
import { isUuid, listClients } from '../queries/integrations/integrations.ts';

/** Parses `supplier,repairer` (commas and/or spaces) into scopes; unknown names stop the command. */
export function parseScopeList(raw: string): Scope[] {
  const names = raw.split(/[\s,]+/).filter(Boolean);
  const bad = names.filter((s) => !isScope(s));
  if (bad.length || names.length === 0) throw integrationsErrors.error('invalid_scope', `--scopes must list some of ${SCOPES.join(', ')}; got "${raw}".`);
  return [...new Set(names.filter(isScope))];
}

function clientId(raw: string): string {
  if (!isUuid(raw)) throw integrationsErrors.error('client_not_found', `Not a client id: ${raw}`);
  return raw.toLowerCase();
}

/** Who an operator command acts as: the system job `cli`, the command as the reason of every event it appends. */
export function operator(reason: string): Caller {
  return { auth: systemAuth('cli'), reason };
}

/** Runs one command with the service opened. */
export type WithApp = <T>(fn: (app: App) => Promise<T>) => Promise<T>;

/** Adds the `client` commands to `admin`. */
export function addClientCommands(admin: Command, withApp: WithApp): void {
  const client = admin.command('client').description('Integration clients (third-party apps that may be installed)');
  client
    .command('create')
    .description('Registers an app; prints client_id and client_secret (the secret is shown only now).')
    .requiredOption('--name <name>', 'the app name shown on the consent page')
    .requiredOption('--redirect-url <url>', 'an allowed redirect URL, matched exactly (repeat for several)', (v: string, prev: string[] = []) => [...prev, v])
    .requiredOption('--scopes <scopes>', `allowed scopes, comma separated: ${SCOPES.join(',')}`)
    .action(async (o: { name: string; redirectUrl: string[]; scopes: string }) => {
      const scopes = parseScopeList(o.scopes);
      await withApp(async (app) => {
        const { body: res } = await app.invoke(operationOf(app, 'integrations.clients.insert'), { name: o.name, redirect_urls: o.redirectUrl, scopes }, operator('admin client create'));
        await settle(app);
        console.log(`client_id: ${res.client_id}`);
        console.log(`client_secret: ${res.client_secret}`);
        console.log(`secret_id: ${res.secret_id}`);
        console.error('Store the client_secret now: it is shown only once (the service keeps a hash).');
      });
    });
  client
    .command('rotate-secret')
    .description('Adds a second valid secret; the old one keeps working until revoke-secret. Prints the new secret once.')
    .requiredOption('--client-id <id>', 'the client')
    .action(async (o: { clientId: string }) => {
      await withApp(async (app) => {
        const { body: res } = await app.invoke(operationOf(app, 'integrations.clients.rotate-secret'), { client_id: clientId(o.clientId) }, operator('admin client rotate-secret'));
        await settle(app);
        console.log(`client_secret: ${res.client_secret}`);
        console.log(`secret_id: ${res.secret_id}`);
        console.error('Store the client_secret now: it is shown only once. Revoke the old secret (secret_id from `admin client list`) once the app uses the new one.');
      });
    });
  client
    .command('revoke-secret')
    .description('Revokes one secret at once (exchanges with it fail with invalid_client).')
    .requiredOption('--client-id <id>', 'the client')
    .requiredOption('--secret-id <id>', 'the secret, as printed by create, rotate-secret or list')
    .action(async (o: { clientId: string; secretId: string }) => {
      await withApp(async (app) => {
        if (!isUuid(o.secretId)) throw integrationsErrors.error('secret_not_found', `Not a secret id: ${o.secretId}`);
        await app.invoke(operationOf(app, 'integrations.clients.revoke-secret'), { client_id: clientId(o.clientId), secret_id: o.secretId.toLowerCase() }, operator('admin client revoke-secret'));
        await settle(app);
        console.log(`revoked secret ${o.secretId}`);
      });
    });
  client
    .command('list')
    .description('Lists clients with their redirect URLs, scopes and secrets (ids and dates only).')
    .action(async () => {
      await withApp(async (app) => {
        await settle(app);
        for (const c of await listClients(app.knex)) {
          console.log(`${c.id}  ${c.name}  scopes: ${c.scopes.join(',')}`);
          for (const u of c.redirect_urls) console.log(`    redirect_url: ${u}`);
          for (const s of c.secrets) console.log(`    secret ${s.secret_id} created ${s.created_at}${s.revoked_at ? ` revoked ${s.revoked_at}` : ' (valid)'}`);
        }
      });
    });
}
