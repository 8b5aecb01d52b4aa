// billing.currencies.list: the runtime's ISO 4217 list joined with billing_currency_settings (written by projections/billing/currencies.ts).
import type { Knex } from 'knex';
import { z } from 'zod';
import { operation } from '../../api/operation.ts';
import { CurrencyListItem, CurrencyListRequest } from '../../api/schemas/billing-catalogue.ts';
import { runtimeCurrencies } from '../../domain/billing/currency.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

/** Codes of the currencies enabled for billing now. */
export async function enabledCurrencyCodes(knex: Knex): Promise<Set<string>> {
  const rows = (await knex('billing_currency_settings').where({ enabled_for_billing: true }).select('id')) as { id: string }[];
  return new Set(rows.map((r) => r.id));
}

/** One currency as billing.currencies.list shows it. */
export async function currencyItem(knex: Knex, code: string): Promise<z.output<typeof CurrencyListItem> | null> {
  const info = runtimeCurrencies().find((c) => c.code === code);
  if (!info) return null;
  return { ...info, enabled_for_billing: (await enabledCurrencyCodes(knex)).has(code) };
}

export const currenciesList = operation({
  id: 'billing.currencies.list',
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists every ISO 4217 currency the runtime knows, with its minor units and whether it is enabled for billing.',
  request: CurrencyListRequest,
  response: z.array(CurrencyListItem),
  error: 'billing.CurrencyListError',
  errors: billingErrors.list(),
  access: 'org_user',
  async handle(ctx, req) {
    const enabled = await enabledCurrencyCodes(ctx.services.knex);
    const all = runtimeCurrencies().map((c) => ({ ...c, enabled_for_billing: enabled.has(c.code) }));
    return req.enabled_for_billing === undefined ? all : all.filter((c) => c.enabled_for_billing === req.enabled_for_billing);
  },
});

/** Read operations of currencies. */
export const billingCurrencyQueries = [currenciesList];
