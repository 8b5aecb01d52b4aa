// billing.currencies.update (extension): platform staff turn billing in a currency on or off.
import { operation } from '../../contract/operation.ts';
import { CurrencyListItem, CurrencyUpdateRequest } from '../../contract/schemas/billing-catalogue.ts';
import { currencyItem } from '../../queries/billing/currencies.ts';
import { currencySettings } from './handlers.ts';
import { billingCurrenciesProjection } from '../../projections/billing/currencies.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { isoMinorUnits } from '../../iso4217.ts';

export const currenciesUpdate = operation({
  id: 'billing.currencies.update',
  examples: {
    request: { code: 'GBP', enabled_for_billing: false },
    response: { code: 'GBP', name: 'Acme Repairs Ltd', minor_units: 1, enabled_for_billing: false, recorded_minor_units: null },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Enables or disables a currency for billing (extension). Setting the current value again records nothing; a currency whose amounts were recorded with another exponent than ISO 4217 gives it now cannot be enabled (409 currency_exponent_changed).',
  request: CurrencyUpdateRequest,
  response: CurrencyListItem,
  error: 'billing.CurrencyUpdateError',
  errors: billingErrors.list('currency_exponent_changed'),
  access: 'platform_staff',
  write: true,
  readModels: [billingCurrenciesProjection],
  async handle(ctx, req) {
    const iso = isoMinorUnits(req.code);
    if (iso === undefined) throw ctx.errors.error('invalid_request', `${req.code} is not an ISO 4217 currency.`, { issues: [{ path: 'code', message: 'not an ISO 4217 code' }] });
    const command = { type: 'SetCurrencyBilling' as const, data: { code: req.code, enabled_for_billing: req.enabled_for_billing, iso_minor_units: iso } };
    await currencySettings.run(ctx, req.code, command, { orgId: null });
    await ctx.readYourWrites();
    const item = await currencyItem(ctx.services.knex, req.code);
    if (!item) throw ctx.errors.error('invalid_request', `${req.code} is not an ISO 4217 currency.`, { issues: [{ path: 'code', message: 'not an ISO 4217 code' }] });
    return item;
  },
});

/** Write operations of currencies. */
export const billingCurrencyCommands = [currenciesUpdate];
