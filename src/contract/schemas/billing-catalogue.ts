// Schemas of the billing catalogue (products, prices, currencies), named as the spec names them.
import { z } from 'zod';
import { CurrencyCode, Metadata, PageRequest, RequestInstant, Timestamp, Uuid, page } from './common.ts';

const ProductName = z.string().trim().min(1).max(200).describe('Name shown on invoices and price lists.');
const ProductDescription = z.string().trim().max(2000).describe('Longer description.');

export const ProductCreateRequest = z
  .strictObject({
    name: ProductName,
    description: ProductDescription.optional(),
    active: z.boolean().default(true).describe('Inactive (archived) products take no new prices.'),
    metadata: Metadata.default({}),
  })
  .meta({ id: 'billing.ProductCreateRequest' });

export const ProductUpdateRequest = z
  .strictObject({
    id: Uuid.describe('Product id.'),
    name: ProductName.optional(),
    description: ProductDescription.nullable().optional().describe('null removes the description.'),
    active: z.boolean().optional().describe('false archives the product; true brings it back.'),
    metadata: Metadata.optional().describe('Replaces the metadata.'),
  })
  .meta({ id: 'billing.ProductUpdateRequest' });

export const ProductDetailItem = z
  .object({
    id: Uuid,
    name: z.string(),
    description: z.string().nullable(),
    active: z.boolean().describe('false once archived.'),
    metadata: z.record(z.string(), z.string()),
    entitlements: z.array(z.string()).describe('Keys of the entitlements the product grants its subscribers.'),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'billing.ProductDetailItem' });

export const ProductListRequest = z
  .strictObject({ ...PageRequest, active: z.boolean().optional().describe('Only active (true) or archived (false) products.') })
  .meta({ id: 'billing.ProductListRequest' });

export const ProductListPage = page(ProductDetailItem, 'billing.ProductListPage');

export const PriceType = z.enum(['one_time', 'recurring', 'per_unit']).describe('one_time: charged once; recurring: every interval; per_unit: per unit of use.');
export const PriceRecurring = z
  .strictObject({ interval: z.enum(['day', 'week', 'month', 'year']).describe('How often a recurring price is charged.') })
  .meta({ id: 'billing.PriceRecurring' });

const Nickname = z.string().trim().min(1).max(200).describe('Internal name of the price.');
const LookupKey = z.string().trim().min(1).max(200).describe('Your own key to find the price by.');

export const PriceCreateRequest = z
  .strictObject({
    product_id: Uuid.describe('An existing, active product.'),
    currency: CurrencyCode.describe('ISO 4217 code of a currency enabled for billing.'),
    unit_amount: z.int().describe('Whole minor units (pence, cents); at least 1, or 0 for a recurring price.'),
    type: PriceType,
    recurring: PriceRecurring.optional().describe('Required for recurring prices, absent otherwise.'),
    active: z.boolean().default(true).describe('Whether the price can be used for new purchases.'),
    nickname: Nickname.optional(),
    lookup_key: LookupKey.optional(),
    metadata: Metadata.default({}),
  })
  .meta({ id: 'billing.PriceCreateRequest' });

export const PriceUpdateRequest = z
  .strictObject({
    id: Uuid.describe('Price id.'),
    active: z.boolean().optional(),
    nickname: Nickname.nullable().optional().describe('null removes the nickname.'),
    lookup_key: LookupKey.nullable().optional().describe('null removes the lookup key.'),
    metadata: Metadata.optional().describe('Replaces the metadata.'),
  })
  .meta({ id: 'billing.PriceUpdateRequest' });

const priceListFields = {
  id: Uuid,
  product_id: Uuid,
  currency: z.string().describe('ISO 4217.'),
  unit_amount: z.int().describe('Whole minor units.'),
  type: PriceType,
  recurring: PriceRecurring.nullable(),
  active: z.boolean(),
  nickname: z.string().nullable(),
  lookup_key: z.string().nullable(),
  created_at: Timestamp,
};

export const PriceListItem = z.object(priceListFields).meta({ id: 'billing.PriceListItem' });

export const PriceDetailItem = z
  .object({ ...priceListFields, metadata: z.record(z.string(), z.string()), updated_at: Timestamp })
  .meta({ id: 'billing.PriceDetailItem' });

export const PriceListRequest = z
  .strictObject({
    ...PageRequest,
    product: Uuid.optional().describe('Only prices of this product.'),
    currency: CurrencyCode.optional().describe('Only prices in this currency.'),
    active: z.boolean().optional().describe('Only active (true) or archived (false) prices.'),
    type: PriceType.optional().describe('Only prices of this type.'),
    lookup_key: LookupKey.optional().describe('Only prices with this lookup key.'),
  })
  .meta({ id: 'billing.PriceListRequest' });

export const PriceListPage = page(PriceListItem, 'billing.PriceListPage');

export const CurrencyListRequest = z
  .strictObject({ enabled_for_billing: z.boolean().optional().describe('Only currencies enabled (true) or not enabled (false) for billing.') })
  .meta({ id: 'billing.CurrencyListRequest' });

export const CurrencyListItem = z
  .object({
    code: z.string().describe('ISO 4217 code.'),
    name: z.string().describe('English name.'),
    minor_units: z.int().describe('ISO 4217 minor units (digits after the decimal point): amounts are integers in these units, e.g. 3 for IQD, 0 for JPY.'),
    enabled_for_billing: z
      .boolean()
      .describe('Whether new prices and billing configuration may use it: enabled by staff, and its amounts recorded with `minor_units`.'),
    recorded_minor_units: z
      .int()
      .nullable()
      .describe(
        'The exponent amounts in this currency are recorded with, fixed when billing in it was first enabled; null if never enabled. When it differs from `minor_units` (ISO 4217 changed it, or it was enabled before the service followed ISO 4217), billing in it stays off.',
      ),
  })
  .meta({ id: 'billing.CurrencyListItem' });

export const CurrencyUpdateRequest = z
  .strictObject({ code: CurrencyCode, enabled_for_billing: z.boolean().describe('Turn billing in this currency on or off.') })
  .meta({ id: 'billing.CurrencyUpdateRequest' });

const DecimalRate = z
  .string()
  .regex(/^(0|[1-9]\d{0,11})(\.\d{1,18})?$/, 'must be a decimal string such as "1.23456789" (up to 12 integer digits and 18 decimals)')
  .describe('How many units of `target` one unit of `base` buys, as a decimal string (never a JSON number, so no precision is lost).');

export const CurrencyExchangeRateInsertRequest = z
  .strictObject({
    base: CurrencyCode.describe('The currency priced.'),
    target: CurrencyCode.describe('The currency it is priced in.'),
    rate: DecimalRate,
    as_of: RequestInstant.describe('When the rate applies from.'),
    source: z.string().trim().min(1).max(200).describe('Where the rate comes from (e.g. `ECB`).'),
  })
  .meta({ id: 'billing.CurrencyExchangeRateInsertRequest' });

export const CurrencyExchangeRateListItem = z
  .object({ base: z.string(), target: z.string(), rate: z.string().describe('Decimal string.'), as_of: Timestamp, source: z.string() })
  .meta({ id: 'billing.CurrencyExchangeRateListItem' });

export const CurrencyExchangeRateListRequest = z
  .strictObject({
    target: CurrencyCode.describe('The currency rates are priced in.'),
    as_of: RequestInstant.optional().describe('The latest rate of each pair at this time (default now).'),
  })
  .meta({ id: 'billing.CurrencyExchangeRateListRequest' });
