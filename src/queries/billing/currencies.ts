// billing.currencies.list: the ISO 4217 table joined with billing_currency_settings (written by projections/billing/currencies.ts).
import type { Knex } from 'knex';
import { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { CurrencyListItem, CurrencyListRequest } from '../../contract/schemas/billing-catalogue.ts';
import { billable, isoCurrencies } from '../../domain/billing/currency.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { CurrencySettingDoc } from '../../projections/billing/currencies.ts';

/** Every currency staff ever switched, by code: whether it is on and the exponent its amounts are recorded with. */
async function settings(knex: Knex, enabledOnly = false): Promise<Map<string, CurrencySettingDoc>> {
  const query = knex('billing_currency_settings').select('id', 'doc');
  const rows = (await (enabledOnly ? query.where({ enabled_for_billing: true }) : query)) as { id: string; doc: CurrencySettingDoc }[];
  return new Map(rows.map((r) => [r.id, r.doc]));
}

/** Codes new amounts may be taken in now: enabled, and recorded with the exponent ISO 4217 gives them. */
export async function enabledCurrencyCodes(knex: Knex): Promise<Set<string>> {
  const all = await settings(knex, true);
  return new Set([...all].filter(([code, s]) => billable({ enabled: s.enabled_for_billing, minor_units: s.minor_units }, code)).map(([code]) => code));
}

function listItems(all: Map<string, CurrencySettingDoc>): z.output<typeof CurrencyListItem>[] {
  return isoCurrencies().map((c) => {
    const s = all.get(c.code);
    return { ...c, enabled_for_billing: s !== undefined && billable({ enabled: s.enabled_for_billing, minor_units: s.minor_units }, c.code), recorded_minor_units: s?.minor_units ?? null };
  });
}

/** One currency as billing.currencies.list shows it. */
export async function currencyItem(knex: Knex, code: string): Promise<z.output<typeof CurrencyListItem> | null> {
  return listItems(await settings(knex)).find((c) => c.code === code) ?? null;
}

export const currenciesList = operation({
  id: 'billing.currencies.list',
  examples: {
    request: { enabled_for_billing: false },
    response: [{ code: 'GBP', name: 'Acme Repairs Ltd', minor_units: 1, enabled_for_billing: false, recorded_minor_units: null }],
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists every current ISO 4217 currency with its ISO minor units and whether it is enabled for billing.',
  request: CurrencyListRequest,
  response: z.array(CurrencyListItem),
  error: 'billing.CurrencyListError',
  errors: billingErrors.list(),
  access: 'org_user',
  async handle(ctx, req) {
    const all = listItems(await settings(ctx.services.knex));
    return req.enabled_for_billing === undefined ? all : all.filter((c) => c.enabled_for_billing === req.enabled_for_billing);
  },
});

/** Read operations of currencies. */
export const billingCurrencyQueries = [currenciesList];
