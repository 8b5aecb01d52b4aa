// billing.currency-exchange-rates.insert (extension): platform staff record a rate of a currency pair.
import { operation } from '../../contract/operation.ts';
import { CurrencyExchangeRateInsertRequest, CurrencyExchangeRateListItem } from '../../contract/schemas/billing-catalogue.ts';
import { rateAt } from '../../queries/billing/exchange-rates.ts';
import { exchangeRates } from './handlers.ts';
import { billingExchangeRatesProjection } from '../../projections/billing/exchange-rates.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

export const exchangeRatesInsert = operation({
  id: 'billing.currency-exchange-rates.insert',
  examples: {
    request: { base: 'GBP', target: 'GBP', rate: '1.25', as_of: '2026-01-15T09:30:00.000Z', source: 'console' },
    response: { base: 'base', target: 'target', rate: 'rate', as_of: '2026-01-15T09:30:00.000Z', source: 'console' },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Records the rate of a currency pair at `as_of` (extension). Platform staff only.',
  description: 'The same rate, source and `as_of` again records nothing; another rate for the same `as_of` corrects it. Trailing fractional zeros are dropped ("1.50" is stored as "1.5").',
  request: CurrencyExchangeRateInsertRequest,
  response: CurrencyExchangeRateListItem,
  error: 'billing.CurrencyExchangeRateInsertError',
  errors: billingErrors.list('invalid_rate'),
  access: 'platform_staff',
  write: true,
  readModels: [billingExchangeRatesProjection],
  async handle(ctx, req) {
    const asOf = new Date(req.as_of).toISOString();
    await exchangeRates.run(ctx, { base: req.base, target: req.target }, {
      type: 'RecordExchangeRate', data: { base: req.base, target: req.target, rate: req.rate, as_of: asOf, source: req.source },
    }, { orgId: null });
    await ctx.readYourWrites();
    const item = await rateAt(ctx.services.knex, req.base, req.target, asOf);
    if (!item) throw new Error(`rate ${req.base}/${req.target} at ${asOf} was recorded but is not in the read model`);
    return item;
  },
});

/** Write operations of exchange rates. */
export const billingExchangeRateCommands = [exchangeRatesInsert];
