// billing.currency-exchange-rates.list, reading billing_exchange_rates (written by projections/billing/exchange-rates.ts).
import type { Knex } from 'knex';
import { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { CurrencyExchangeRateListItem, CurrencyExchangeRateListRequest } from '../../contract/schemas/billing-catalogue.ts';
import type { ExchangeRateDoc } from '../../projections/billing/exchange-rates.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

/** The latest rate of every pair priced in `target` at `asOf`, by base currency. */
export async function latestRates(knex: Knex, target: string, asOf: Date): Promise<z.output<typeof CurrencyExchangeRateListItem>[]> {
  const rows = (await knex('billing_exchange_rates')
    .distinctOn('base')
    .where({ target })
    .andWhere('as_of', '<=', asOf)
    .orderBy([{ column: 'base' }, { column: 'as_of', order: 'desc' }])
    .select('base', 'doc')) as { doc: ExchangeRateDoc }[];
  return rows.map(({ doc: d }) => ({ base: d.base, target: d.target, rate: d.rate, as_of: d.as_of, source: d.source }));
}

/** One recorded rate, or null. */
export async function rateAt(knex: Knex, base: string, target: string, asOf: string): Promise<z.output<typeof CurrencyExchangeRateListItem> | null> {
  const row = await knex('billing_exchange_rates').where({ id: `${base}:${target}:${asOf}` }).first('doc');
  if (!row) return null;
  const d = row.doc as ExchangeRateDoc;
  return { base: d.base, target: d.target, rate: d.rate, as_of: d.as_of, source: d.source };
}

export const exchangeRatesList = operation({
  id: 'billing.currency-exchange-rates.list',
  examples: {
    request: { target: 'GBP' },
    response: [{ base: 'base', target: 'target', rate: 'rate', as_of: '2026-01-15T09:30:00.000Z', source: 'console' }],
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Latest rates for a target currency. Platform staff only.',
  description: 'For each base currency, the rate with the latest `as_of` not after the requested `as_of` (default now). Rates are decimal strings.',
  request: CurrencyExchangeRateListRequest,
  response: z.array(CurrencyExchangeRateListItem),
  error: 'billing.CurrencyExchangeRateListError',
  errors: billingErrors.list(),
  access: 'platform_staff',
  handle: (ctx, req) => latestRates(ctx.services.knex, req.target, req.as_of ? new Date(req.as_of) : ctx.now),
});

/** Read operations of exchange rates. */
export const billingExchangeRateQueries = [exchangeRatesList];
