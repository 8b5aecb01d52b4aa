// Exchange-rate aggregate (`exchangerate-<BASE>_<TARGET>`): rates of one currency pair by `as_of`, as decimal strings (never floats).
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { billingErrors } from './errors.ts';
import { EventInstant } from '../event-fields.ts';

/** A positive decimal: up to 12 integer digits and 18 decimals, no exponent, no sign. */
export const DECIMAL_RATE = /^(0|[1-9]\d{0,11})(\.\d{1,18})?$/;

/** The one written form of a decimal rate: trailing fractional zeros dropped ("1.50" -> "1.5", "2.0" -> "2"). String work only. */
export function canonicalRate(rate: string): string {
  if (!rate.includes('.')) return rate;
  return rate.replace(/0+$/, '').replace(/\.$/, '');
}

/** Whether a decimal string is greater than zero (string work only). */
export function isPositiveRate(rate: string): boolean {
  return /[1-9]/.test(rate);
}

/** Events of an exchange-rate stream. */
export const exchangeRateEvents = eventSchemas({
  ExchangeRateRecorded: z.object({ base: z.string(), target: z.string(), rate: z.string(), as_of: EventInstant, source: z.string(), recorded_at: z.string() }),
});

/** An exchange-rate event (derived from `exchangeRateEvents`). */
export type ExchangeRateEvent = EventOf<typeof exchangeRateEvents>;

/** How exchange-rate events are read. */
export const exchangeRateCodec = eventCodec(exchangeRateEvents);

/** Record a rate of the pair at `as_of`; recording another rate for the same `as_of` corrects it. */
export type ExchangeRateCommand = { type: 'RecordExchangeRate'; data: { base: string; target: string; rate: string; as_of: string; source: string; now: string } };

/** The rates recorded for the pair, by `as_of`. */
export interface ExchangeRateState {
  rates: Record<string, { rate: string; source: string }>;
}

/** Pure exchange-rate decider: the same rate, source and `as_of` again records nothing. */
export const exchangeRateDecider: Decider<ExchangeRateCommand, ExchangeRateEvent, ExchangeRateState> = {
  events: exchangeRateCodec,
  initialState: () => ({ rates: {} }),
  evolve(state, event) {
    switch (event.type) {
      case 'ExchangeRateRecorded':
        return { rates: { ...state.rates, [event.data.as_of]: { rate: event.data.rate, source: event.data.source } } };
      default:
        return assertNever(event.type);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RecordExchangeRate': {
        const { base, target, as_of, source, now } = command.data;
        if (base === target) throw billingErrors.error('invalid_rate', 'base and target must differ.');
        if (!DECIMAL_RATE.test(command.data.rate) || !isPositiveRate(command.data.rate))
          throw billingErrors.error('invalid_rate', 'rate must be a positive decimal string (up to 12 integer digits and 18 decimals).');
        const rate = canonicalRate(command.data.rate);
        const known = Object.hasOwn(state.rates, as_of) ? state.rates[as_of] : undefined;
        if (known && known.rate === rate && known.source === source) return [];
        return [{ type: 'ExchangeRateRecorded', data: { base, target, rate, as_of, source, recorded_at: now } }];
      }
      default:
        return assertNever(command.type);
    }
  },
};
