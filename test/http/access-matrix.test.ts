// Every operation x {no token, bad token, another organization's token, a plain member, billing staff}
// answers what its declared `access` and DOMAIN.md say; another organization's resource is
// indistinguishable from a missing one.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { billedOrg, openInvoice, paymentBody } from '../support/billing.ts';
import { installIntegration, integrationHeaders } from '../support/integrations.ts';
import { systemContext } from '../support/system.ts';
import { createSession, createUser } from '../../src/commands/identity/identity.ts';
import { identityProjection } from '../../src/projections/identity/identity.ts';
import type { Access, Operation } from '../../src/contract/operation.ts';
import { ops } from '../support/ops.ts';
import { grantEntitlement } from '../support/entitlements.ts';
import { VEHICLE_DATA_PRELOAD } from '../../src/commands/vehicles/preload.ts';

const MISSING = '0190c6a2-0000-7000-8000-00000000dead';

type Caller = 'none' | 'bad' | 'other_org_owner' | 'member' | 'billing_staff';

/** Operations for supplier organizations only (DOMAIN.md): every session caller here is in a repairer or platform organization. */
const SUPPLIER_ONLY = new Set(['async-imports.prepare', 'async-imports.commit', 'async-imports.get', 'sellable-items.list']);

/** `expected`, with supplier-only operations refused to the (non-supplier) session callers. */
function expectedFor(op: Operation, caller: Caller): 401 | 403 | 'through' {
  return SUPPLIER_ONLY.has(op.id) && caller !== 'none' && caller !== 'bad' ? 403 : expected(op.access, caller);
}

/** What `access` lets a caller do on the core surface: 401, 403, or through (anything but 401/403). */
function expected(access: Access, caller: Caller): 401 | 403 | 'through' {
  if (caller === 'bad') return 401;
  if (access === 'public') return 'through';
  if (caller === 'none') return 401;
  if (typeof access === 'object') return 401; // a session token is not an API key
  switch (access) {
    case 'org_user':
      return 'through';
    case 'org_admin':
      return caller === 'member' ? 403 : 'through';
    case 'billing_staff':
      return caller === 'billing_staff' ? 'through' : 403;
    case 'platform_staff':
    case 'system':
      return 403;
  }
}

for (const backend of backends()) {
  describe(`access matrix over every operation (${backend})`, function () {
    this.timeout(300_000);
    let svc: TestService;
    before(async () => {
      svc = await startService(backend);
    });
    after(async () => svc?.close());

    it('answers every core operation for each kind of caller as its access rule says, and another organization sees 404 like for a missing id', async () => {
      const staffUser = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      const staff = (await createSession(svc.app.knex, { userId: staffUser.userId, organizationId: staffUser.orgId, now: svc.clock.now(), ttlHours: 24 })).token;
      const acme = await billedOrg(svc);
      const inv = await openInvoice(svc, staff, acme.customerId, [5000]);
      const pay = await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 100), staff);
      const note = await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: acme.customerId }, body: 'n' }, acme.token);
      const cnr = await svc.call(ops['billing.credit-note-requests.insert'], { invoice_id: inv.id, amount: 10, currency: 'GBP', reason: 'other', description: 'x' }, acme.token);
      const events = await svc.call(ops['billing.events.list'], { limit: 1 }, acme.token);
      const paymentId = pay.body.payment.id;
      const eventId = String(events.body.items[0]?.id);
      const member = await createUser(systemContext(svc.app), { email: `member-${Date.now()}@acme.example`, password: 'member password', organizationId: acme.orgId, role: 'member' });
      await svc.app.runner.waitFor(member.position, [identityProjection], 10_000);
      const other = await svc.signUp();
      await svc.call(ops['billing.customers.insert'], { name: 'Other Ltd', email: 'o@example.com', currency: 'GBP' }, other.token);

      /** Bodies that address acme's resources (`id`), for the cross-organization check; the rest get a harmless body. */
      const bodies: Record<string, (id: (real: string) => string) => unknown> = {
        'billing.customers.get': (id) => ({ id: id(acme.customerId) }),
        'billing.customers.update': (id) => ({ id: id(acme.customerId), name: 'Renamed' }),
        'billing.customers.remove': (id) => ({ id: id(acme.customerId) }),
        'billing.customers.statement.get': (id) => ({ customer_id: id(acme.customerId), from: '2026-01-01', to: '2026-01-31' }),
        'billing.notes.insert': (id) => ({ subject: { type: 'customer', id: id(acme.customerId) }, body: 'x' }),
        'billing.notes.update': (id) => ({ id: id(String(note.body.id)), body: 'edited' }),
        'billing.notes.list': (id) => ({ subject: { type: 'customer', id: id(acme.customerId) } }),
        'billing.invoices.get': (id) => id(inv.id),
        'billing.invoices.update': (id) => ({ id: id(inv.id), memo: 'm' }),
        'billing.payments.update': (id) => ({ id: id(paymentId), reference: 'R', reason: 'typo' }),
        'billing.credit-note-requests.insert': (id) => ({ invoice_id: id(inv.id), amount: 1, currency: 'GBP', reason: 'other', description: 'x' }),
        'billing.credit-note-requests.update': (id) => ({ id: id(String(cnr.body.id)), description: 'y' }),
        'billing.events.get': (id) => id(eventId),
        'billing.customers.attachments.prepare': (id) => ({ customer_id: id(acme.customerId), files: [{ filename: 'a.pdf', content_type: 'application/pdf', size: 10 }] }),
        'billing.customers.attachments.list': (id) => ({ customer_id: id(acme.customerId) }),
        'billing.invoices.attachments.prepare': (id) => ({ invoice_id: id(inv.id), files: [{ filename: 'a.pdf', content_type: 'application/pdf', size: 10 }] }),
        'billing.invoices.attachments.list': (id) => ({ invoice_id: id(inv.id) }),
        'async-imports.prepare': () => ({ kind: 'sellable_items', format: 'csv', size: 10 }),
        'async-imports.commit': (id) => ({ id: id(MISSING) }),
        'async-imports.get': (id) => ({ id: id(MISSING) }),
        'billing.invoices.orders.list': (id) => ({ invoice_id: id(inv.id) }),
      };
      const real = (x: string) => x;
      const missing = () => MISSING;
      const fresh = async (userId: string, orgId: string) => (await createSession(svc.app.knex, { userId, organizationId: orgId, now: svc.clock.now(), ttlHours: 1 })).token;
      const tokenOf: Record<Exclude<Caller, 'none' | 'bad'>, () => Promise<string>> = {
        other_org_owner: () => fresh(other.userId, other.orgId),
        member: () => fresh(member.id, acme.orgId),
        billing_staff: () => fresh(staffUser.userId, staffUser.orgId),
      };

      const registered: Operation[] = svc.app.registry.list('core');
      let checked = 0;
      // Cross-organization first (before any caller changes or removes acme's resources).
      for (const op of registered) {
        const body = bodies[op.id];
        if (!body) continue;
        const foreign = await svc.send(op.id, body(real), await tokenOf.other_org_owner());
        const absent = await svc.send(op.id, body(missing), await tokenOf.other_org_owner());
        const what = `${op.id}: foreign ${foreign.status} ${JSON.stringify(foreign.body)} / missing ${absent.status} ${JSON.stringify(absent.body)}`;
        if (expectedFor(op, 'other_org_owner') !== 'through') {
          expect(foreign.status, what).to.equal(absent.status);
          continue;
        }
        expect(foreign.status, what).to.equal(404);
        expect(absent.status, what).to.equal(404);
        expect(foreign.body.code, what).to.equal(absent.body.code);
        const strip = (m: string) => m.replaceAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>');
        expect(strip(foreign.body.message ?? ''), what).to.equal(strip(absent.body.message ?? ''));
        checked++;
      }
      expect(checked, 'cross-organization checks').to.be.greaterThan(8);

      for (const op of registered) {
        for (const caller of ['none', 'bad', 'other_org_owner', 'member', 'billing_staff'] as const) {
          const token = caller === 'none' ? null : caller === 'bad' ? 'svc_sess_notarealtoken' : await tokenOf[caller]();
          const body = bodies[op.id]?.(real) ?? (op.request === null ? undefined : {});
          const res = await svc.send(op.id, body, token);
          const want = expectedFor(op, caller);
          const what = `${op.id} (${JSON.stringify(op.access)}) as ${caller}: ${res.status} ${JSON.stringify(res.body)}`;
          if (want === 'through') expect(res.status, what).to.not.be.oneOf([401, 403]);
          else {
            expect(res.status, what).to.equal(want);
            expect(res.body.code, what).to.equal(want === 401 ? 'unauthenticated' : 'forbidden');
          }
          expect(res.status, what).to.be.below(500);
        }
      }
    });

    it('answers every integrations operation for each kind of caller, and another organization\'s job is 404 like a missing one', async () => {
      const ownerA = await svc.signUp();
      const ownerB = await svc.signUp();
      const keyA = await installIntegration(svc, { token: ownerA.token, scopes: ['repairer', 'supplier'] });
      const keyB = await installIntegration(svc, { token: ownerB.token, scopes: ['repairer'] });
      const supplierOnly = await installIntegration(svc, { token: ownerA.token, scopes: ['supplier'] });
      await grantEntitlement(svc, ownerA.orgId, VEHICLE_DATA_PRELOAD);
      const job = await svc.callIntegration(ops['jobs.insert'], { identity: { external: { value: 'MATRIX-1' } }, if_: { exists: 'update' }, data: { repairer_site_id: ownerA.siteId, vehicle: { identifier: { chassis_number: 'WVWZZZ1JZXW000001' } } } }, integrationHeaders(keyA));
      expect(job.status).to.equal(200);
      const foreign = await svc.callIntegration(ops['jobs.get'], { identity: { id: job.body.id } }, integrationHeaders(keyB));
      const absent = await svc.callIntegration(ops['jobs.get'], { identity: { id: MISSING } }, integrationHeaders(keyB));
      expect(foreign.status).to.equal(404);
      expect([foreign.body.code, absent.status]).to.deep.equal([absent.body.code, 404]);
      const foreignExternal = await svc.callIntegration(ops['jobs.get'], { identity: { external: { value: 'MATRIX-1' } } }, integrationHeaders(keyB));
      expect(foreignExternal.status).to.equal(404);

      const staffUser = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      const sessionToken = (await createSession(svc.app.knex, { userId: staffUser.userId, organizationId: staffUser.orgId, now: svc.clock.now(), ttlHours: 1 })).token;
      const callers: Record<string, Record<string, string>> = {
        none: {},
        bad: { authorization: 'Bearer svc_key_notarealkey', 'svc-integration-id': keyA.integrationId },
        wrong_integration_id: { authorization: `Bearer ${keyA.apiKey}`, 'svc-integration-id': keyB.integrationId },
        session_token: { authorization: `Bearer ${sessionToken}` },
        scope_missing: integrationHeaders(supplierOnly),
      };
      for (const op of svc.app.registry.list('integrations')) {
        if (op.id === 'integrations.remove') continue; // would uninstall; covered below with its own key
        for (const [caller, headers] of Object.entries(callers)) {
          const res = await svc.send(op.id, op.request === null ? undefined : {}, null, headers, 'integrations');
          const what = `${op.id} as ${caller}: ${res.status} ${JSON.stringify(res.body)}`;
          if (op.access === 'public') {
            expect(res.status, what).to.not.equal(403);
            if (caller === 'none') expect(res.status, what).to.not.equal(401);
            continue;
          }
          const needs = typeof op.access === 'object' ? op.access.integration : 'any';
          const want = caller === 'scope_missing' ? (needs === 'any' || needs.includes('supplier') ? 'through' : 403) : 401;
          if (want === 'through') expect(res.status, what).to.not.be.oneOf([401, 403]);
          else expect(res.status, what).to.equal(want);
        }
      }
      const removed = await svc.callIntegration(ops['integrations.remove'], undefined, integrationHeaders(supplierOnly));
      expect(removed.status).to.equal(200);
      expect((await svc.callIntegration(ops['integrations.get'], undefined, integrationHeaders(supplierOnly))).status).to.equal(401);
    });
  });
}
