// The demo seed `start` writes into an empty database, so a new user can call the API at once.
import type { App } from './app.ts';
import { type Auth, systemAuth } from './context.ts';
import { findUserByEmail, sessionAuth } from './queries/identity/identity.ts';
import { VEHICLE_DATA_PRELOAD } from './commands/vehicles/preload.ts';
import { identityProjection } from './projections/identity/identity.ts';
import { ops } from './areas/operations.ts';
import { seedBillingActivity } from './seed-activity.ts';

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
/** Platform staff: the catalogue, currencies and entitlements pages of the console. */
export const DEMO_PLATFORM = 'platform@core-server.example';
export const DEMO_PASSWORD = 'demo-password';

/**
 * Seeds the demo when the log is empty; returns null when there is already data (a partial seed is not resumed: start
 * again on an empty database). Every write is an operation invoked as the system (job `cli`) or as the demo staff.
 * `start` listens before seeding: the demo attachment is uploaded to its signed URL like any client's.
 */
export async function seedDemo(app: App, opts: { activity?: boolean } = {}): Promise<DemoSeed | null> {
  if ((await app.store.headPosition()) !== null) return null;
  const as = (organizationId: string | null = null) => ({ auth: systemAuth('cli', organizationId), reason: 'demo seed' });
  const acme = (await app.invoke(ops['identity.organizations.insert'], { name: 'Acme Repairs', kind: 'repairer' }, as())).body;
  await app.invoke(ops['identity.sites.insert'], { organization_id: acme.id, name: 'Acme Repairs Main Street' }, as(acme.id));
  const user = { password: DEMO_PASSWORD, staff: [] as ('billing_staff' | 'platform_staff')[] };
  const owner = (await app.invoke(ops['identity.users.insert'], { ...user, email: DEMO_OWNER, name: 'Avery Owner', organization_id: acme.id, role: 'owner' }, as())).body;
  const platform = (await app.invoke(ops['identity.organizations.insert'], { name: 'core-server platform', kind: 'platform' }, as())).body;
  const staff = (await app.invoke(ops['identity.users.insert'], { ...user, email: DEMO_STAFF, name: 'Billie Staff', organization_id: platform.id, role: 'member', staff: ['billing_staff'] }, as())).body;
  // The seed runs at start-up, before the banner, with its own bound: the identity read model shows every write above.
  await identityUpToDate(app);
  // Acme's billing customer, so the billing console has someone to find on day one (answered once the read model shows it).
  const customer = (await app.invoke(ops['billing.customers.provision'], {
    organization_id: acme.id, name: 'Acme Repairs Ltd', email: 'accounts@acme-repairs.example', currency: 'GBP', payment_terms_days: 30,
    billing_address: { line1: '1 Main Street', city: 'Leeds', postal_code: 'LS1 1AA', country: 'GB' },
  }, as(acme.id))).body;
  const catalogue = await seedCatalogue(app, platform.id, acme.id, as);
  // `activity: false` (browser suites that tell their own story on Acme) stops at the catalogue.
  if (opts.activity !== false) {
    const billing = { auth: await signedIn(app, staff.id, platform.id, as), reason: 'demo seed' };
    await seedBillingActivity(app, { acmeId: acme.id, acmeCustomerId: customer.id, platform: catalogue, billing, as, identityUpToDate: () => identityUpToDate(app) });
  }
  const orgToken = (await app.invoke(ops['auth.sessions.issue'], { user_id: owner.id, organization_id: acme.id }, as(acme.id))).body;
  const staffToken = (await app.invoke(ops['auth.sessions.issue'], { user_id: staff.id, organization_id: platform.id }, as(platform.id))).body;
  return { orgId: acme.id, customerId: customer.id, orgToken: orgToken.token, staffToken: staffToken.token };
}

/** True when the demo users exist (to print a hint instead of tokens on later starts). */
export async function demoSeeded(app: App): Promise<boolean> {
  return (await findUserByEmail(app.knex, DEMO_OWNER)) !== null;
}

/** Waits until the identity read model shows every write so far (the seed's own bound, at start-up). */
async function identityUpToDate(app: App): Promise<void> {
  await app.runner.waitFor(await app.store.headPosition(), [identityProjection], 10_000);
}

/** The session auth of a demo user (the catalogue and billing steps act as staff would in the console). */
async function signedIn(app: App, userId: string, organizationId: string, as: (org?: string | null) => { auth: ReturnType<typeof systemAuth>; reason: string }): Promise<Auth> {
  const session = (await app.invoke(ops['auth.sessions.issue'], { user_id: userId, organization_id: organizationId }, as(organizationId))).body;
  const auth = await sessionAuth(app.knex, session.token, app.clock.now());
  if (!auth) throw new Error('the demo staff session does not read back');
  return auth;
}

/**
 * The catalogue a demo needs, as platform staff would make it in the console: currencies enabled for billing, the
 * vehicle-data entitlement, a product granting it with a monthly price, and Acme subscribed (so Acme has the
 * entitlement its assemblies demo uses, and the console's catalogue, currencies and subscriptions pages show something).
 */
async function seedCatalogue(app: App, platformId: string, acmeId: string, as: (org?: string | null) => { auth: ReturnType<typeof systemAuth>; reason: string }): Promise<{ auth: Auth; reason: string }> {
  const staff = (await app.invoke(ops['identity.users.insert'], { email: DEMO_PLATFORM, password: DEMO_PASSWORD, name: 'Pat Platform', organization_id: platformId, role: 'member', staff: ['platform_staff'] }, as())).body;
  await identityUpToDate(app);
  const by = { auth: await signedIn(app, staff.id, platformId, as), reason: 'demo seed' };
  for (const code of ['GBP', 'EUR', 'USD']) await app.invoke(ops['billing.currencies.update'], { code, enabled_for_billing: true }, by);
  await app.invoke(ops['billing.entitlements.insert'], { key: VEHICLE_DATA_PRELOAD, name: 'Vehicle data preload', description: 'Registration lookups and parts trees ahead of a job (assemblies).' }, by);
  const product = (await app.invoke(ops['billing.products.insert'], { name: 'Repairer Pro', description: 'Assemblies with vehicle data, usage billing' }, by)).body;
  await app.invoke(ops['billing.products.entitlements.insert'], { product_id: product.id, entitlement_key: VEHICLE_DATA_PRELOAD }, by);
  const price = (await app.invoke(ops['billing.prices.insert'], { product_id: product.id, currency: 'GBP', unit_amount: 4900, type: 'recurring', recurring: { interval: 'month' }, nickname: 'Repairer Pro monthly' }, by)).body;
  const now = app.clock.now();
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  await app.invoke(ops['billing.subscriptions.insert'], { organization_id: acmeId, items: [{ price_id: price.id, quantity: 1 }], current_period_start: start.toISOString(), current_period_end: end.toISOString() }, by);
  return by;
}
