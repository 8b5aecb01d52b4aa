// Currencies: codes and minor units from the shipped ISO 4217 table, English names from Intl; `currency-<CODE>`
// streams record whether staff enabled one for billing and the exponent its amounts are recorded with.
import { z } from 'zod';
import { type Decider, type EventOf, type Upcaster, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { ISO4217_LIST_ONE, RETIRED_MINOR_UNITS, RUNTIME_MINOR_UNITS_BEFORE_ISO, isoMinorUnits } from '../../iso4217.ts';
import { billingErrors } from './errors.ts';

/** A currency the service takes amounts in: code, English name and ISO 4217 minor units. */
export interface CurrencyInfo {
  code: string;
  name: string;
  minor_units: number;
}

/** Every current ISO 4217 currency with minor units, by code; the name is Intl's English one, ISO's where Intl has none. */
export function isoCurrencies(): CurrencyInfo[] {
  const names = new Intl.DisplayNames(['en'], { type: 'currency', fallback: 'none' });
  return ISO4217_LIST_ONE.flatMap(([code, , minor, isoName]) => (minor === null ? [] : [{ code, name: names.of(code) ?? isoName, minor_units: minor }]));
}

/** Events of a currency stream. */
export const currencyEvents = eventSchemas({
  CurrencyBillingChanged: z.object({
    code: z.string(),
    enabled_for_billing: z.boolean(),
    changed_at: z.string(),
    /** The exponent amounts in this currency are recorded with: fixed when billing in it is first enabled. */
    minor_units: z.int().min(0),
  }),
});

/** A currency event (derived from `currencyEvents`). */
export type CurrencyEvent = EventOf<typeof currencyEvents>;

// Events recorded before the service followed ISO 4217 carry no exponent: they were recorded with the runtime's
// (CLDR) digits, which differ from ISO's for the codes in RUNTIME_MINOR_UNITS_BEFORE_ISO and equal them elsewhere.
const exponentBeforeIso: Upcaster = (data) => {
  if (typeof data !== 'object' || data === null || Object.hasOwn(data, 'minor_units') || !('code' in data) || typeof data.code !== 'string') return data;
  const minor = RUNTIME_MINOR_UNITS_BEFORE_ISO[data.code] ?? RETIRED_MINOR_UNITS[data.code] ?? isoMinorUnits(data.code);
  return minor === undefined ? data : { ...data, minor_units: minor };
};

/** How currency events are read. */
export const currencyCodec = eventCodec(currencyEvents, { upcasters: { CurrencyBillingChanged: exponentBeforeIso } });

/** Turn billing in a currency on or off; `iso_minor_units` is the table's exponent for the code, which the handler looked up. */
export type CurrencyCommand = { type: 'SetCurrencyBilling'; data: { code: string; enabled_for_billing: boolean; iso_minor_units: number; now: string } };

/** Whether billing in the currency is on (off until staff turn it on), and the exponent its amounts were recorded with (null: never enabled). */
export interface CurrencyState {
  enabled: boolean;
  minor_units: number | null;
}

/** True when new amounts may be taken in the currency: enabled, and recorded with the exponent ISO 4217 gives it now. */
export function billable(state: CurrencyState, code: string): boolean {
  return state.enabled && state.minor_units === isoMinorUnits(code);
}

/** Pure currency decider: a change that changes nothing records nothing; an exponent never changes under recorded amounts. */
export const currencyDecider: Decider<CurrencyCommand, CurrencyEvent, CurrencyState> = {
  events: currencyCodec,
  initialState: () => ({ enabled: false, minor_units: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'CurrencyBillingChanged':
        return { enabled: event.data.enabled_for_billing, minor_units: event.data.minor_units };
      default:
        return assertNever(event.type);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'SetCurrencyBilling': {
        const { code, enabled_for_billing, iso_minor_units, now } = command.data;
        // Amounts in it were recorded with another exponent: taking new ones with ISO's would mix two meanings of one integer.
        if (enabled_for_billing && state.minor_units !== null && state.minor_units !== iso_minor_units)
          throw billingErrors.error(
            'currency_exponent_changed',
            `${code} amounts were recorded with ${state.minor_units} decimals and ISO 4217 now gives ${iso_minor_units}: billing in ${code} stays off until its amounts are migrated.`,
          );
        if (state.enabled === enabled_for_billing) return [];
        return [{ type: 'CurrencyBillingChanged', data: { code, enabled_for_billing, changed_at: now, minor_units: state.minor_units ?? iso_minor_units } }];
      }
      default:
        return assertNever(command.type);
    }
  },
};
