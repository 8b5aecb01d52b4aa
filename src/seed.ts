// The demo seed `start` writes into an empty database, so a new user can call the API at once.
import type { Knex } from 'knex';
import type { App } from './app.ts';
import { type CommandContext, systemAuth } from './context.ts';
import { addSite, createOrganization, createSession, createUser } from './commands/identity/identity.ts';
import { findUserByEmail } from './queries/identity/identity.ts';
import { identityProjection } from './projections/identity/identity.ts';
import { customerIdOf } from './commands/billing/customers.ts';
import { customers } from './commands/billing/handlers.ts';
import { billingCustomersProjection } from './projections/billing/customers.ts';
import { systemCommandContext } from './pipeline/invoke.ts';

/** A command context for operator actions (CLI, seed): the actor is the system (job `cli`); the pipeline makes its metadata. */
export function systemContext(app: Pick<App, 'store' | 'clock' | 'knex'>, reason?: string): CommandContext & { knex: Knex } {
  return systemCommandContext(app, { auth: systemAuth('cli'), ...(reason ? { reason } : {}) });
}

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

/** Seeds the demo when the log is empty; returns null when there is already data. */
export async function seedDemo(app: App): Promise<DemoSeed | null> {
  if ((await app.store.headPosition()) !== null) return null;
  const ctx = systemContext(app, 'demo seed');
  const acme = await createOrganization(ctx, { name: 'Acme Repairs', kind: 'repairer' });
  await addSite(ctx, acme.id, 'Acme Repairs Main Street');
  const owner = await createUser(ctx, { email: DEMO_OWNER, password: DEMO_PASSWORD, name: 'Avery Owner', organizationId: acme.id, role: 'owner' });
  const platform = await createOrganization(ctx, { name: 'core-server platform', kind: 'platform' });
  const staff = await createUser(ctx, { email: DEMO_STAFF, password: DEMO_PASSWORD, name: 'Billie Staff', organizationId: platform.id, role: 'member', staff: ['billing_staff'] });
  await app.runner.waitFor(staff.position, [identityProjection], 10_000);
  // Acme's billing customer, so the billing console has someone to find on day one.
  const customerId = customerIdOf(acme.id);
  const customer = await customers.run(ctx, customerId, {
    type: 'CreateCustomer',
    data: {
      customer_id: customerId, organization_id: acme.id, name: 'Acme Repairs Ltd', email: 'accounts@acme-repairs.example', currency: 'GBP', payment_terms_days: 30,
      billing_address: { line1: '1 Main Street', city: 'Leeds', postal_code: 'LS1 1AA', country: 'GB' }, tax_id: null, metadata: {},
    },
  }, { orgId: acme.id });
  await app.runner.waitFor(customer.position, [billingCustomersProjection], 10_000);
  const now = app.clock.now();
  const ttl = app.config.sessionTtlHours;
  const orgToken = await createSession(app.knex, { userId: owner.id, organizationId: acme.id, now, ttlHours: ttl });
  const staffToken = await createSession(app.knex, { userId: staff.id, organizationId: platform.id, now, ttlHours: ttl });
  return { orgId: acme.id, customerId, orgToken: orgToken.token, staffToken: staffToken.token };
}

/** True when the demo users exist (to print a hint instead of tokens on later starts). */
export async function demoSeeded(app: App): Promise<boolean> {
  return (await findUserByEmail(app.knex, DEMO_OWNER)) !== null;
}
