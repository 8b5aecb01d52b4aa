// billing_usage_months: per subscription and month, the orders staff held out of its invoices and the refusal the usage
// invoice worker recorded (cleared once the month is invoiced); read by queries/billing/usage-months.ts.
import { type UsageMonthEvent, usageMonthCodec } from '../../domain/billing/usage-month.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { streamKey } from '../recorded.ts';

/** Why the month could not be invoiced, since when (the first refusal of a run of them) and as last recorded. */
export interface UsageMonthRefusal {
  code: string;
  message: string;
  issues: { path: string; message: string }[];
  since: string;
  refused_at: string;
}

/** One subscription month's held orders (by order id) and refusal. */
export interface UsageMonthDoc {
  id: string;
  subscription_id: string;
  period: string;
  held: Record<string, { revision: number; reasons: string; held_at: string }>;
  refusal: UsageMonthRefusal | null;
}

function empty(id: string, d: { subscription_id: string; period: string }): UsageMonthDoc {
  return { id, subscription_id: d.subscription_id, period: d.period, held: {}, refusal: null };
}

/** Builds billing_usage_months from usage month events. */
export const billingUsageMonthsProjection = documentProjection({
  name: 'billing.usage-months',
  version: 1,
  tables: [
    documentTable<UsageMonthDoc, UsageMonthEvent>({
      table: 'billing_usage_months',
      events: usageMonthCodec,
      columns: (d) => ({ subscription_id: d.subscription_id, period: d.period, refused: d.refusal !== null, refused_since: d.refusal?.since ?? null }),
      handlers: {
        UsageOrdersHeld: (doc, d, e) => {
          const base = doc ?? empty(streamKey(e), d);
          const held = { ...base.held };
          for (const o of d.orders) held[o.order_id] = { revision: o.revision, reasons: o.reasons, held_at: d.held_at };
          return { ...base, held };
        },
        UsageMonthRefused: (doc, d, e) => {
          const base = doc ?? empty(streamKey(e), d);
          return { ...base, refusal: { code: d.code, message: d.message, issues: d.issues, since: base.refusal?.since ?? d.refused_at, refused_at: d.refused_at } };
        },
        UsageMonthRefusalCleared: (doc) => doc && { ...doc, refusal: null },
      },
    }),
  ],
});
