// Access codes of the install flow: a plain table (short-lived, single use), written by the consent page, consumed by integrations.insert.
import type { Knex } from 'knex';
import { type Scope, isScope } from '../../domain/integrations/scopes.ts';
import { operation } from '../../contract/operation.ts';
import { AccessCodeIssueRequest, AccessCodeIssued } from '../../contract/schemas/integrations.ts';
import { forbidden } from '../../domain/errors.ts';
import { integrationsErrors } from '../../domain/integrations/errors.ts';
import crypto from 'node:crypto';
import { hashSecret, newSecret } from '../../secrets.ts';

/** How long a code can be exchanged (the spec's 15 minutes). */
export const ACCESS_CODE_TTL_MS = 15 * 60_000;

/** How long a used or expired code is kept so that a late replay still revokes what it made. */
export const ACCESS_CODE_RETENTION_MS = 7 * 86_400_000;

/** A stored access code (only its hash is stored). */
export interface AccessCodeRow {
  code_hash: string;
  client_id: string;
  redirect_url: string;
  user_id: string;
  organization_id: string;
  scopes: Scope[];
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  integration_id: string | null;
  /** PKCE S256 challenge of the authorize request, or null when it sent none. */
  code_challenge: string | null;
}

/** Issues a code bound to client, redirect URL, user, organization and scopes; returns the code (never stored in plain). */
export async function issueAccessCode(
  knex: Knex,
  input: { clientId: string; redirectUrl: string; userId: string; organizationId: string; scopes: Scope[]; codeChallenge: string | null; now: Date },
): Promise<string> {
  const code = newSecret('svc_code_');
  await knex('integration_access_codes').where('expires_at', '<', new Date(input.now.getTime() - ACCESS_CODE_RETENTION_MS)).delete();
  await knex('integration_access_codes').insert({
    code_hash: hashSecret(code),
    client_id: input.clientId,
    redirect_url: input.redirectUrl,
    user_id: input.userId,
    organization_id: input.organizationId,
    scopes: JSON.stringify(input.scopes),
    created_at: input.now,
    expires_at: new Date(input.now.getTime() + ACCESS_CODE_TTL_MS),
    code_challenge: input.codeChallenge,
  });
  return code;
}

/** The code row of a presented code, or null. */
export async function findAccessCode(knex: Knex, code: string): Promise<AccessCodeRow | null> {
  const row = (await knex('integration_access_codes').where({ code_hash: hashSecret(code) }).first()) as AccessCodeRow | undefined;
  return row ?? null;
}

/** Marks the code used by `integrationId`; false when another exchange got there first. */
export async function claimAccessCode(knex: Knex, codeHash: string, integrationId: string, now: Date): Promise<boolean> {
  const n = await knex('integration_access_codes').where({ code_hash: codeHash }).whereNull('used_at').update({ used_at: now, integration_id: integrationId });
  return n === 1;
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)). */
export function s256(verifier: string): string {
  return crypto.createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** PKCE at the exchange: a code issued with a challenge needs the matching verifier; a verifier without a challenge is a downgrade (RFC 9700 2.1.1). */
export function pkceSatisfied(row: Pick<AccessCodeRow, 'code_challenge'>, verifier: string | undefined): boolean {
  if (row.code_challenge === null) return verifier === undefined;
  if (verifier === undefined) return false;
  const a = Buffer.from(s256(verifier));
  const b = Buffer.from(row.code_challenge);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** integrations.access-codes.insert (internal): the consent page's code, issued as the signed-in owner or admin who allowed the app. */
export const accessCodesInsert = operation({
  id: 'integrations.access-codes.insert',
  surface: 'internal',
  tags: ['Integrations'],
  summary: 'Issues the access code of an app installation the signed-in owner or admin allowed on the consent page.',
  description: 'Internal: invoked by the consent page (src/http/pages/authorize.ts), which checks the client, redirect URL and scopes first.',
  request: AccessCodeIssueRequest,
  response: AccessCodeIssued,
  error: 'integrations.AccessCodeError',
  errors: integrationsErrors.list('invalid_request'),
  access: 'org_admin',
  async handle(ctx, req) {
    const role = ctx.auth.membershipRole;
    if (role !== 'owner' && role !== 'admin') throw forbidden('Only owners and admins of the organization may install apps. Ask one of them to install it.');
    const scopes = req.scopes.filter(isScope);
    if (scopes.length !== req.scopes.length) throw ctx.errors.error('invalid_request', 'Unknown scope.');
    const code = await issueAccessCode(ctx.services.knex, {
      clientId: req.client_id, redirectUrl: req.redirect_url, userId: ctx.auth.userId, organizationId: ctx.auth.organizationId, scopes, codeChallenge: req.code_challenge, now: ctx.now,
    });
    return { code };
  },
});
