// Read-your-writes through the declaration: an operation names the read models it reads its writes back from
// (`readModels`), and `ctx.readYourWrites()` waits until they have applied what the call's commands wrote, so the
// answer shows the write. When they do not apply it in time the answer is 503 projection_lag; a handler that reads
// its writes back without declaring what it reads is a bug the pipeline refuses.
import { expect } from 'chai';
import { z } from 'zod';
import { operation } from '../../src/contract/operation.ts';
import { customers } from '../../src/commands/billing/handlers.ts';
import { ProjectionLagError } from '../../src/context.ts';
import { invoke } from '../../src/pipeline/invoke.ts';
import { billingErrors } from '../../src/domain/billing/errors.ts';
import { billingCustomersProjection } from '../../src/projections/billing/customers.ts';
import { getCustomerDoc } from '../../src/queries/billing/customers.ts';
import { billedOrg } from '../support/billing.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { settle } from '../support/settle.ts';

/** An operation (not registered: called in process) that renames a customer and answers the name its read model shows. */
function renameOperation(opts: { declared: boolean; appended?: () => void }) {
  return operation({
    id: 'test.customers.rename', surface: 'core', tags: ['Billing'], summary: 'Renames a customer; answers the read model\'s name.',
    request: z.object({ id: z.string(), name: z.string() }), response: z.object({ name: z.string().nullable() }), error: 'test.RenameError',
    errors: billingErrors.list('customer_not_found'), access: 'public', write: true,
    ...(opts.declared ? { readModels: [billingCustomersProjection] } : {}),
    async handle(ctx, req) {
      await customers.run(ctx, req.id, { type: 'UpdateCustomer', data: { changes: { name: req.name } } }, { orgId: null });
      opts.appended?.();
      await ctx.readYourWrites();
      return { name: (await getCustomerDoc(ctx.services.db, req.id))?.name ?? null };
    },
  });
}

const anonymous = { auth: { kind: 'anonymous' as const } };

/** Calls `op` through the pipeline in process (the app's own `invoke` serves registered operations only). */
function call(svc: TestService, op: ReturnType<typeof renameOperation>, input: { id: string; name: string }, caller: typeof anonymous) {
  return invoke(svc.app, op, input, caller, { checkContracts: true });
}

for (const backend of backends()) {
  describe(`read-your-writes through the declaration (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    before(async () => {
      svc = await startService(backend);
    });
    after(async () => svc?.close());

    it('answers with the write: the declared read models are waited for where the call\'s commands left the log', async () => {
      const acme = await billedOrg(svc);
      let appended = () => {};
      const written = new Promise<void>((resolve) => (appended = resolve));
      // The projections stop: only a wait makes the answer show the new name.
      await svc.app.runner.stop();
      try {
        const answer = call(svc, renameOperation({ declared: true, appended }), { id: acme.customerId, name: 'Renamed Ltd' }, anonymous);
        await written;
        await svc.app.runner.catchUp();
        expect((await answer).body.name).to.equal('Renamed Ltd');
      } finally {
        svc.app.runner.start();
      }
      const got = await svc.call(ops['billing.customers.get'], { id: acme.customerId }, acme.token);
      expect(got.body.name).to.equal('Renamed Ltd');
    });

    it('refuses a handler that reads its writes back without declaring its read models', async () => {
      const acme = await billedOrg(svc);
      const err = await call(svc, renameOperation({ declared: false }), { id: acme.customerId, name: 'Undeclared Ltd' }, anonymous).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
      expect(String(err)).to.contain('test.customers.rename reads its writes back but declares no readModels');
    });
  });

  describe(`read models that do not apply a write in time (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    before(async () => {
      svc = await startService(backend, { env: { PROJECTION_WAIT_MS: '300' } });
    });
    after(async () => svc?.close());

    it('answer 503 projection_lag, in process and over HTTP; the write is kept', async () => {
      const acme = await billedOrg(svc);
      await svc.app.runner.stop();
      try {
        const err = await call(svc, renameOperation({ declared: true }), { id: acme.customerId, name: 'Late Ltd' }, anonymous).then(() => null, (e: unknown) => e);
        expect(err).to.be.instanceOf(ProjectionLagError);
        const res = await svc.call(ops['billing.customers.update'], { id: acme.customerId, name: 'Later Ltd' }, acme.token);
        expect(res.status).to.equal(503);
        expect(res.body.code).to.equal('projection_lag');
        expect(res.headers.get('retry-after')).to.equal('1');
      } finally {
        svc.app.runner.start();
      }
      await settle(svc);
      const got = await svc.call(ops['billing.customers.get'], { id: acme.customerId }, acme.token);
      expect(got.body.name).to.equal('Later Ltd');
    });
  });
}
