// Standard Webhooks signing (https://www.standardwebhooks.com): `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`,
// one signature per secret that still signs (space-separated), so a receiver verifying with the old or the new secret accepts it.
import crypto from 'node:crypto';
import type { SigningSecret } from '../../projections/billing/webhook-outbox.ts';

/** The headers of one delivery. `timestampSeconds` is wall-clock time: receivers compare it with their own clock to refuse replays. */
export function signedHeaders(webhookId: string, timestampSeconds: number, body: string, secrets: SigningSecret[], now: Date): Record<string, string> {
  const signing = secrets.filter((s) => s.until === null || Date.parse(s.until) > now.getTime());
  const content = `${webhookId}.${timestampSeconds}.${body}`;
  const signatures = signing.map((s) => `v1,${crypto.createHmac('sha256', Buffer.from(s.secret.replace(/^whsec_/, ''), 'base64')).update(content).digest('base64')}`);
  return { 'webhook-id': webhookId, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signatures.join(' ') };
}
