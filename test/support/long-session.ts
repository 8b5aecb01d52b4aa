// Suites that move the clock by months need sessions that outlive the 24 h ones signUp makes.
import { createSession } from '../../src/commands/identity/identity.ts';
import type { TestService } from './app.ts';
import type { BilledOrg } from './billing.ts';
import { ops } from './ops.ts';

type SignUpOpts = Parameters<TestService['signUp']>[0];

/** signUp, with a session valid for 400 days from the test clock's now. */
export async function signUpLong(svc: TestService, opts: SignUpOpts = {}): Promise<Awaited<ReturnType<TestService['signUp']>>> {
  const u = await svc.signUp(opts);
  const s = await createSession(svc.app.knex, { userId: u.userId, organizationId: u.orgId, now: svc.clock.now(), ttlHours: 400 * 24 });
  return { ...u, token: s.token };
}

/** An organization (owner signed in for 400 days) with its billing customer. */
export async function billedOrgLong(svc: TestService, opts: { currency?: string; payment_terms_days?: number } = {}): Promise<BilledOrg> {
  const u = await signUpLong(svc);
  const c = await svc.call(ops['billing.customers.insert'], { name: `Customer of ${u.orgId.slice(0, 8)}`, email: 'ap@example.com', currency: opts.currency ?? 'GBP', payment_terms_days: opts.payment_terms_days ?? 30 }, u.token);
  if (c.status !== 200) throw new Error(`customer insert failed: ${JSON.stringify(c.body)}`);
  return { orgId: u.orgId, token: u.token, customerId: c.body.id };
}
