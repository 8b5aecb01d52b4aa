// Currencies: the ISO 4217 list comes from the runtime's Intl data; `currency-<CODE>` streams record whether staff enabled one for billing.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';

/** A currency as the runtime knows it: code, English name and minor units. */
export interface CurrencyInfo {
  code: string;
  name: string;
  minor_units: number;
}

/** Every ISO 4217 currency the runtime knows, by code (Intl.supportedValuesOf, Intl.DisplayNames, Intl.NumberFormat). */
export function runtimeCurrencies(): CurrencyInfo[] {
  const names = new Intl.DisplayNames(['en'], { type: 'currency' });
  return Intl.supportedValuesOf('currency').map((code) => ({
    code,
    name: names.of(code) ?? code,
    minor_units: new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2,
  }));
}

/** Events of a currency stream. */
export const currencyEvents = eventSchemas({
  CurrencyBillingChanged: z.object({ code: z.string(), enabled_for_billing: z.boolean(), changed_at: z.string() }),
});

/** A currency event (derived from `currencyEvents`). */
export type CurrencyEvent = EventOf<typeof currencyEvents>;

/** How currency events are read. */
export const currencyCodec = eventCodec(currencyEvents);

/** Turn billing in a currency on or off. */
export type CurrencyCommand = { type: 'SetCurrencyBilling'; data: { code: string; enabled_for_billing: boolean; now: string } };

/** Whether billing in the currency is on (off until staff turn it on). */
export interface CurrencyState {
  enabled: boolean;
}

/** Pure currency decider: a change that changes nothing records nothing. */
export const currencyDecider: Decider<CurrencyCommand, CurrencyEvent, CurrencyState> = {
  events: currencyCodec,
  initialState: () => ({ enabled: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'CurrencyBillingChanged':
        return { enabled: event.data.enabled_for_billing };
      default:
        return assertNever(event.type);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'SetCurrencyBilling': {
        const { code, enabled_for_billing, now } = command.data;
        if (state.enabled === enabled_for_billing) return [];
        return [{ type: 'CurrencyBillingChanged', data: { code, enabled_for_billing, changed_at: now } }];
      }
      default:
        return assertNever(command.type);
    }
  },
};
