// The demo seed `start` writes into an empty database, so a new user can call the API at once.
import type { App } from './app.ts';
import { type Auth, systemAuth } from './context.ts';
import { findUserByEmail, sessionAuth } from './queries/identity/identity.ts';
import { VEHICLE_DATA_PRELOAD } from './commands/vehicles/preload.ts';
import { identityProjection } from './projections/identity/identity.ts';
import { ops } from './areas/operations.ts';
import { SET_UP_DAYS_AGO, seedBillingActivity, seedSupplierHistory } from './seed-activity.ts';
import { SeedStory } from './seed-story.ts';
import { invokeRegistered } from './pipeline/invoke.ts';

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
 * Seeds the demo when the log is empty, or completes a seed a killed start began (src/seed-story.ts); returns null
 * when there is other data, or the seed was done before. Every write is an operation invoked as the system (job
 * `cli`) or as the demo staff, at its time in the demo's story: the platform set up three weeks ago, today's activity
 * now. `start` listens before seeding: the demo attachment is uploaded to its signed URL like any client's.
 * `afterWrite` (tests) runs after each step's write, before it is recorded: throwing there is a start killed then.
 */
export async function seedDemo(app: App, opts: { activity?: boolean; afterWrite?: (step: string) => void } = {}): Promise<DemoSeed | null> {
  if (await SeedStory.complete(app.knex)) return null;
  if (!(await SeedStory.begun(app.knex)) && (await app.store.headPosition()) !== null) return null;
  const story = await SeedStory.open(app, opts.afterWrite);
  const setUp = story.daysAgo(SET_UP_DAYS_AGO);
  const as = (organizationId: string | null = null) => ({ auth: systemAuth('cli', organizationId), reason: 'demo seed' });
  const acme = await story.call('acme', setUp, ops['identity.organizations.insert'], { name: 'Acme Repairs', kind: 'repairer' }, as());
  await story.call('acme site', setUp, ops['identity.sites.insert'], { organization_id: acme.id, name: 'Acme Repairs Main Street' }, as(acme.id));
  const user = { password: DEMO_PASSWORD, staff: [] as ('billing_staff' | 'platform_staff')[] };
  const owner = await story.call('acme owner', setUp, ops['identity.users.insert'], { ...user, email: DEMO_OWNER, name: 'Avery Owner', organization_id: acme.id, role: 'owner' }, as());
  const platform = await story.call('platform', setUp, ops['identity.organizations.insert'], { name: 'core-server platform', kind: 'platform' }, as());
  const staff = await story.call('billing staff', setUp, ops['identity.users.insert'], { ...user, email: DEMO_STAFF, name: 'Billie Staff', organization_id: platform.id, role: 'member', staff: ['billing_staff'] }, as());
  // The seed runs at start-up, before the banner, with its own bound: the identity read model shows every write above.
  await identityUpToDate(app);
  // Acme's billing customer, so the billing console has someone to find on day one (answered once the read model shows it).
  const customer = await story.call('acme customer', setUp, ops['billing.customers.provision'], {
    organization_id: acme.id, name: 'Acme Repairs Ltd', email: 'accounts@acme-repairs.example', currency: 'GBP', payment_terms_days: 30,
    billing_address: { line1: '1 Main Street', city: 'Leeds', postal_code: 'LS1 1AA', country: 'GB' },
  }, as(acme.id));
  const catalogue = await seedCatalogue(app, story, platform.id, as);
  // `activity: false` (browser suites that tell their own story on Acme) stops at the catalogue and Acme's subscription.
  const billing = { auth: await signedIn(app, story, setUp, staff.id, platform.id, as), reason: 'demo seed' };
  const base = { acmeId: acme.id, acmeCustomerId: customer.id, platform: catalogue.by, billing, as, identityUpToDate: () => identityUpToDate(app) };
  const history = opts.activity === false ? null : await seedSupplierHistory(story, base);
  // The story's present: Acme subscribes this month.
  const now = story.anchor;
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  await story.call('acme subscription', now, ops['billing.subscriptions.insert'], { organization_id: acme.id, items: [{ price_id: catalogue.priceId, quantity: 1 }], current_period_start: start.toISOString(), current_period_end: end.toISOString() }, catalogue.by);
  if (history) await seedBillingActivity(app, story, base, history);
  await story.finish();
  // The tokens printed: issued now (a resumed seed's earlier ones may have expired).
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

/** The session auth of a demo user at `at` in the story (the catalogue and billing steps act as staff would in the console). */
async function signedIn(app: App, story: SeedStory, at: Date, userId: string, organizationId: string, as: (org?: string | null) => { auth: ReturnType<typeof systemAuth>; reason: string }): Promise<Auth> {
  // Not a step: a session of its own each attempt (one issued before a kill may have expired since).
  const session = (await invokeRegistered({ ...app, clock: { now: () => at } }, app.registry, ops['auth.sessions.issue'], { user_id: userId, organization_id: organizationId }, as(organizationId))).body;
  const auth = await sessionAuth(app.knex, session.token, at);
  if (!auth) throw new Error(`the demo staff session does not read back (story ${story.anchor.toISOString()})`);
  return auth;
}

/**
 * The catalogue a demo needs, as platform staff would make it in the console: currencies enabled for billing, the
 * vehicle-data entitlement and a product granting it with a monthly price, which Acme subscribes to (so Acme has the
 * entitlement its assemblies demo uses, and the console's catalogue, currencies and subscriptions pages show something).
 */
async function seedCatalogue(app: App, story: SeedStory, platformId: string, as: (org?: string | null) => { auth: ReturnType<typeof systemAuth>; reason: string }): Promise<{ by: { auth: Auth; reason: string }; priceId: string }> {
  const setUp = story.daysAgo(SET_UP_DAYS_AGO);
  const staff = await story.call('platform staff', setUp, ops['identity.users.insert'], { email: DEMO_PLATFORM, password: DEMO_PASSWORD, name: 'Pat Platform', organization_id: platformId, role: 'member', staff: ['platform_staff'] }, as());
  await identityUpToDate(app);
  const by = { auth: await signedIn(app, story, setUp, staff.id, platformId, as), reason: 'demo seed' };
  for (const code of ['GBP', 'EUR', 'USD'] as const) await story.call(`currency ${code}`, setUp, ops['billing.currencies.update'], { code, enabled_for_billing: true }, by);
  await story.call('entitlement', setUp, ops['billing.entitlements.insert'], { key: VEHICLE_DATA_PRELOAD, name: 'Vehicle data preload', description: 'Registration lookups and parts trees ahead of a job (assemblies).' }, by);
  const product = await story.call('product', setUp, ops['billing.products.insert'], { name: 'Repairer Pro', description: 'Assemblies with vehicle data, usage billing' }, by);
  await story.call('product entitlement', setUp, ops['billing.products.entitlements.insert'], { product_id: product.id, entitlement_key: VEHICLE_DATA_PRELOAD }, by);
  const price = await story.call('price', setUp, ops['billing.prices.insert'], { product_id: product.id, currency: 'GBP', unit_amount: 4900, type: 'recurring', recurring: { interval: 'month' }, nickname: 'Repairer Pro monthly' }, by);
  return { by, priceId: price.id };
}
