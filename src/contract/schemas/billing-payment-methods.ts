// Schemas of payment-method setups and payment methods, named as the spec names them.
import { z } from 'zod';
import { Timestamp, Uuid } from './common.ts';

const MethodType = z.enum(['card', 'bank_debit']).describe('card, or a bank debit mandate.');

/** NextAction (spec type of the same name). */
export const NextAction = z
  .union([
    z.object({ type: z.literal('redirect'), url: z.string().describe('Send the payer here.'), return_url: z.string().describe('Where the provider sends the payer back.') }),
    z.object({ type: z.literal('display_details'), details: z.record(z.string(), z.string()).describe('What to show the payer (bank details, a reference).') }),
  ])
  .describe('What the payer must do next; null when nothing.')
  .meta({ id: 'billing.PaymentMethodSetupNextAction' });

/** PaymentMethodSetupStatus (spec type of the same name). */
export const PaymentMethodSetupStatus = z.enum(['requires_action', 'processing', 'succeeded', 'failed', 'canceled']);

/** PaymentMethodSetupStartRequest (spec type of the same name). */
export const PaymentMethodSetupStartRequest = z
  .strictObject({
    customer_id: Uuid.describe('The customer the method is for.'),
    type: MethodType.default('card'),
    return_url: z.url({ protocol: /^https?$/ }).max(2000).describe('Where the payer returns after the provider\'s page.'),
  })
  .meta({ id: 'billing.PaymentMethodSetupStartRequest' });

/** PaymentMethodSetupGetRequest (spec type of the same name). */
export const PaymentMethodSetupGetRequest = z.strictObject({ id: Uuid.describe('Setup id.') }).meta({ id: 'billing.PaymentMethodSetupGetRequest' });

/** PaymentMethodSetupItem (spec type of the same name). */
export const PaymentMethodSetupItem = z
  .object({
    id: Uuid,
    customer_id: Uuid,
    type: MethodType,
    status: PaymentMethodSetupStatus.describe('requires_action -> processing -> succeeded | failed | canceled.'),
    next_action: NextAction.nullable(),
    payment_method_id: z.string().nullable().describe('The method the setup produced, once succeeded.'),
    failure: z.object({ code: z.string(), message: z.string() }).nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'billing.PaymentMethodSetupItem' });

/** PaymentMethodItem (spec type of the same name). */
export const PaymentMethodItem = z
  .object({
    id: z.string(),
    type: MethodType,
    brand: z.string().nullable().describe('Card brand.'),
    last4: z.string().describe('Last four digits of the card or account.'),
    exp_month: z.int().nullable(),
    exp_year: z.int().nullable(),
    bank_name: z.string().nullable(),
    mandate_reference: z.string().nullable(),
    is_default: z.boolean(),
    created_at: Timestamp,
  })
  .meta({ id: 'billing.PaymentMethodItem' });

/** PaymentMethodsListRequest (spec type of the same name). */
export const PaymentMethodsListRequest = z.strictObject({ customer_id: Uuid.describe('Customer id.') }).meta({ id: 'billing.PaymentMethodsListRequest' });

/** PaymentMethodsListResponse (spec type of the same name). */
export const PaymentMethodsListResponse = z
  .object({
    customer_id: Uuid,
    items: z.array(PaymentMethodItem).describe('Active methods, oldest first.'),
    mandate: z.object({ payment_method_id: z.string(), reference: z.string(), status: z.literal('active') }).nullable().describe('The active bank debit mandate, if any.'),
    collection: z.object({ auto_collection: z.boolean(), default_payment_method_id: z.string().nullable() }),
    resumable_setup: PaymentMethodSetupItem.nullable().describe('The newest setup still requiring action or processing.'),
  })
  .meta({ id: 'billing.PaymentMethodsListResponse' });

/** PaymentMethodRemoveRequest (spec type of the same name). */
export const PaymentMethodRemoveRequest = z
  .strictObject({ customer_id: Uuid.describe('Customer id.'), id: z.string().min(1).max(100).describe('Payment method id.') })
  .meta({ id: 'billing.PaymentMethodRemoveRequest' });
