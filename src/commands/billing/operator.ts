// Billing's operator operations (internal, access system), invoked as the system (job `cli`) by the CLI's imports and the demo
// seed: a batch of a usage file, the rows of a rates file, an organization's billing customer. Never routed over HTTP.
import { operation } from '../../contract/operation.ts';
import { CustomerCreateRequest, CustomerDetailItem } from '../../contract/schemas/billing-customers.ts';
import { ExchangeRatesImportRequest, ExchangeRatesImported } from '../../contract/schemas/billing-system.ts';
import { UsageInsertRequest, UsageInsertResponse } from '../../contract/schemas/billing-usage.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { DomainError } from '../../domain/errors.ts';
import { billingCustomersProjection } from '../../projections/billing/customers.ts';
import { visibleCustomer } from '../../queries/billing/customers.ts';
import { customerIdOf } from './customers.ts';
import { customers, exchangeRates } from './handlers.ts';
import { recordUsage, usageInsert } from './usage.ts';

/** billing.usage.import-batch */
export const usageImportBatch = operation({
  id: 'billing.usage.import-batch',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Records one batch of a usage file as billing.usage.insert does (`core-server usage import`).',
  request: UsageInsertRequest,
  response: UsageInsertResponse,
  error: 'billing.UsageInsertError',
  errors: usageInsert.errors,
  access: 'system',
  write: true,
  async handle(ctx, req) {
    return recordUsage({ ...ctx, knex: ctx.services.knex }, req);
  },
});

/** billing.exchange-rates.import */
export const exchangeRatesImport = operation({
  id: 'billing.exchange-rates.import',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Records the rows of a rates file; each is decided before anything is appended, so a refused row writes nothing (`core-server rates import`).',
  request: ExchangeRatesImportRequest,
  response: ExchangeRatesImported,
  error: 'billing.ExchangeRateImportError',
  errors: billingErrors.list('invalid_rate'),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const commands = req.rows.map((r) => ({ pair: { base: r.base, target: r.target }, command: { type: 'RecordExchangeRate' as const, data: { base: r.base, target: r.target, rate: r.rate, as_of: new Date(r.as_of).toISOString(), source: r.source } } }));
    for (const [i, c] of commands.entries()) {
      try {
        exchangeRates.decide(ctx, c.command, await exchangeRates.load(ctx, c.pair));
      } catch (err) {
        if (err instanceof DomainError) throw ctx.errors.error('invalid_rate', `Row ${i + 1}: ${err.message}`);
        throw err;
      }
    }
    let recorded = 0;
    for (const c of commands) if ((await exchangeRates.run(ctx, c.pair, c.command, { orgId: null })).events.length > 0) recorded++;
    return { recorded, unchanged: commands.length - recorded };
  },
});

/** billing.customers.provision */
export const customersProvision = operation({
  id: 'billing.customers.provision',
  surface: 'internal',
  tags: ['Billing'],
  summary: "Creates an organization's billing customer as an operator (the demo seed).",
  request: CustomerCreateRequest,
  response: CustomerDetailItem,
  error: 'billing.CustomerInsertError',
  errors: billingErrors.list('invalid_request', 'customer_exists'),
  access: 'system',
  write: true,
  readModels: [billingCustomersProjection],
  async handle(ctx, req) {
    const { organization_id: organizationId, metadata, tax_id, billing_address, ...rest } = req;
    if (!organizationId) throw ctx.errors.error('invalid_request', 'organization_id is required.', { issues: [{ path: 'organization_id', message: 'required' }] });
    const id = customerIdOf(organizationId);
    await customers.run(ctx, id, {
      type: 'CreateCustomer',
      data: { ...rest, organization_id: organizationId, customer_id: id, billing_address: billing_address ?? null, tax_id: tax_id ?? null, metadata },
    }, { orgId: organizationId });
    await ctx.readYourWrites();
    return visibleCustomer(ctx, id);
  },
});

/** Billing's operator operations. */
export const billingOperatorCommands = [usageImportBatch, exchangeRatesImport, customersProvision];
