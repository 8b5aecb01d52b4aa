// The demo seed `start` writes into an empty database, so a new user can call the API at once.
import type { App } from './app.ts';
import { systemAuth } from './context.ts';
import { findUserByEmail } from './queries/identity/identity.ts';
import { identityProjection } from './projections/identity/identity.ts';
import { ops } from './areas/operations.ts';

/** Demo credentials printed on first start. */
export interface DemoSeed {
  orgId: string;
  /** Acme's billing customer. */
  customerId: string;
  orgToken: string;
  staffToken: string;
}

export const DEMO_OWNER = 'owner@acme-repairs.example';
export const DEMO_STAFF = 'billing@core-server.example';
export const DEMO_PASSWORD = 'demo-password';

/** Seeds the demo when the log is empty; returns null when there is already data. Every write is an operation invoked as the system (job `cli`). */
export async function seedDemo(app: App): Promise<DemoSeed | null> {
  if ((await app.store.headPosition()) !== null) return null;
  const as = (organizationId: string | null = null) => ({ auth: systemAuth('cli', organizationId), reason: 'demo seed' });
  const acme = (await app.invoke(ops['identity.organizations.insert'], { name: 'Acme Repairs', kind: 'repairer' }, as())).body;
  await app.invoke(ops['identity.sites.insert'], { organization_id: acme.id, name: 'Acme Repairs Main Street' }, as(acme.id));
  const user = { password: DEMO_PASSWORD, staff: [] as ('billing_staff' | 'platform_staff')[] };
  const owner = (await app.invoke(ops['identity.users.insert'], { ...user, email: DEMO_OWNER, name: 'Avery Owner', organization_id: acme.id, role: 'owner' }, as())).body;
  const platform = (await app.invoke(ops['identity.organizations.insert'], { name: 'core-server platform', kind: 'platform' }, as())).body;
  const staff = (await app.invoke(ops['identity.users.insert'], { ...user, email: DEMO_STAFF, name: 'Billie Staff', organization_id: platform.id, role: 'member', staff: ['billing_staff'] }, as())).body;
  // The seed runs at start-up, before the API listens, with its own bound: the identity read model shows every write above.
  await app.runner.waitFor(await app.store.headPosition(), [identityProjection], 10_000);
  // Acme's billing customer, so the billing console has someone to find on day one (answered once the read model shows it).
  const customer = (await app.invoke(ops['billing.customers.provision'], {
    organization_id: acme.id, name: 'Acme Repairs Ltd', email: 'accounts@acme-repairs.example', currency: 'GBP', payment_terms_days: 30,
    billing_address: { line1: '1 Main Street', city: 'Leeds', postal_code: 'LS1 1AA', country: 'GB' },
  }, as(acme.id))).body;
  const orgToken = (await app.invoke(ops['auth.sessions.issue'], { user_id: owner.id, organization_id: acme.id }, as(acme.id))).body;
  const staffToken = (await app.invoke(ops['auth.sessions.issue'], { user_id: staff.id, organization_id: platform.id }, as(platform.id))).body;
  return { orgId: acme.id, customerId: customer.id, orgToken: orgToken.token, staffToken: staffToken.token };
}

/** True when the demo users exist (to print a hint instead of tokens on later starts). */
export async function demoSeeded(app: App): Promise<boolean> {
  return (await findUserByEmail(app.knex, DEMO_OWNER)) !== null;
}
