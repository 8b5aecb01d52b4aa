// Operator commands on integration clients: register, rotate a secret, revoke a secret (used by `admin client ...`).
import type { Scope } from '../../domain/integrations/scopes.ts';
import type { LogPosition } from '../../eventstore/port.ts';
import { hashSecret, newSecret } from '../../secrets.ts';
import type { CommandContext } from '../../context.ts';
import { integrationClients } from './handlers.ts';

/** A secret as shown once to the operator. */
export interface IssuedSecret {
  secretId: string;
  clientSecret: string;
}

/** Registers a client; returns its id and its first secret (shown once, stored hashed). */
export async function createClient(
  ctx: CommandContext,
  input: { name: string; redirectUrls: string[]; scopes: Scope[] },
): Promise<{ clientId: string; position: LogPosition | null } & IssuedSecret> {
  const clientId = ctx.ids.next();
  const secretId = ctx.ids.next();
  const clientSecret = newSecret('svc_secret_');
  const res = await integrationClients.run(ctx, clientId, {
    type: 'RegisterClient',
    data: { client_id: clientId, name: input.name, redirect_urls: input.redirectUrls, scopes: input.scopes, secret_id: secretId, secret_hash: hashSecret(clientSecret) },
  }, { orgId: null });
  return { clientId, secretId, clientSecret, position: res.position };
}

/** Adds a second valid secret (rotation); the old one keeps working until revoked. */
export async function rotateClientSecret(ctx: CommandContext, clientId: string): Promise<IssuedSecret & { position: LogPosition | null }> {
  const secretId = ctx.ids.next();
  const clientSecret = newSecret('svc_secret_');
  const res = await integrationClients.run(ctx, clientId, { type: 'AddClientSecret', data: { secret_id: secretId, secret_hash: hashSecret(clientSecret) } }, { orgId: null });
  return { secretId, clientSecret, position: res.position };
}

/** Revokes one secret at once. */
export async function revokeClientSecret(ctx: CommandContext, clientId: string, secretId: string): Promise<LogPosition | null> {
  const res = await integrationClients.run(ctx, clientId, { type: 'RevokeClientSecret', data: { secret_id: secretId } }, { orgId: null });
  return res.position;
}
