// Charge aggregate (`charge-<provider charge ref>`, issue 26 section 2): what the service decided about one provider charge that was
// taken but not (fully) applied to its invoice. Reconciliation records a charge only the provider knew (`ProviderChargeFound`); billing
// staff resolve what is due back once, by a refund through the provider or by applying it to another open invoice of the same customer.
// A resolution holds the charge first (`ChargeResolutionStarted`, appended with the stream's expected revision) and only then moves
// money, so two tabs or a retry resolve it once; its outcome ends it (`ChargeRefunded`, `ChargeAppliedToInvoice`, or
// `ChargeResolutionFailed`, which leaves the charge due).
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { EventAmount, EventInstant } from '../event-fields.ts';
import { billingErrors } from './errors.ts';

/** How a charge due back is resolved: given back through the provider, or applied to another open invoice of the customer. */
export const ResolutionKindSchema = z.enum(['refund', 'apply']);
/** How a charge due back is resolved. */
export type ResolutionKind = z.infer<typeof ResolutionKindSchema>;

/** Who a charge belongs to, when known (a charge found only at the provider may name nobody). */
const OwnerFields = { organization_id: z.string().nullable(), customer_id: z.string().nullable(), invoice_id: z.string().nullable() };

/** Events of a charge stream. */
export const chargeEvents = eventSchemas({
  /** Reconciliation found a succeeded charge at the provider that the service never recorded (a pass that charged, then stopped). */
  ProviderChargeFound: z.object({
    charge_ref: z.string(), provider: z.string(), amount: EventAmount, currency: z.string(), ...OwnerFields, charged_at: EventInstant, found_at: EventInstant,
  }),
  /** Staff started resolving what is due back: the charge is held for this resolution until its outcome. */
  ChargeResolutionStarted: z.object({
    charge_ref: z.string(), resolution_id: z.string(), kind: ResolutionKindSchema, amount: EventAmount, currency: z.string(),
    organization_id: z.string().nullable(), customer_id: z.string().nullable(),
    /** The invoice the amount goes to (`apply`), else null. */
    target_invoice_id: z.string().nullable(),
    /** The provider's idempotency key of the refund (`refund`), or the payment id recorded on the target invoice (`apply`). */
    key: z.string(),
    reason: z.string(),
    started_at: EventInstant,
  }),
  /** The provider gave `amount` back (its refund `refund_ref`). */
  ChargeRefunded: z.object({ charge_ref: z.string(), resolution_id: z.string(), refund_ref: z.string(), amount: EventAmount, currency: z.string(), reason: z.string(), refunded_at: EventInstant }),
  /** `amount` was recorded as payment `payment_id` of `invoice_id` (same customer). */
  ChargeAppliedToInvoice: z.object({
    charge_ref: z.string(), resolution_id: z.string(), invoice_id: z.string(), payment_id: z.string(), amount: EventAmount, currency: z.string(), reason: z.string(), applied_at: EventInstant,
  }),
  /** The resolution did not happen (the provider refused the refund, the invoice no longer took the payment): still due. */
  ChargeResolutionFailed: z.object({ charge_ref: z.string(), resolution_id: z.string(), code: z.string(), message: z.string(), failed_at: EventInstant }),
});
/** A charge event. */
export type ChargeEvent = EventOf<typeof chargeEvents>;
/** How charge events are read. */
export const chargeCodec = eventCodec(chargeEvents);

/** A resolution in flight. */
export type PendingResolution = Omit<Extract<ChargeEvent, { type: 'ChargeResolutionStarted' }>['data'], 'started_at'> & { started_at: string };

/** What the amount due back is, as the caller read it (the refunds-due list) when it asks to resolve. */
export interface DueBack {
  amount: number;
  currency: string;
  organization_id: string | null;
  customer_id: string | null;
}

/** What may be asked of a charge. */
export type ChargeCommand =
  | { type: 'RecordProviderCharge'; data: Omit<Extract<ChargeEvent, { type: 'ProviderChargeFound' }>['data'], 'found_at'> & { now: string } }
  | { type: 'StartResolution'; data: { charge_ref: string; resolution_id: string; kind: ResolutionKind; due: DueBack; target_invoice_id: string | null; key: string; reason: string; now: string } }
  | {
      type: 'CompleteResolution';
      data: {
        resolution_id: string;
        outcome: { status: 'refunded'; refund_ref: string } | { status: 'applied'; payment_id: string } | { status: 'failed'; code: string; message: string };
        now: string;
      };
    };

/** Where a charge stands. */
export interface ChargeState {
  /** Any event at all: the service knows this charge. */
  exists: boolean;
  found: boolean;
  pending: PendingResolution | null;
  resolved: { kind: ResolutionKind; resolution_id: string; amount: number; at: string } | null;
}

/** Pure charge decider: found once, resolved once (one resolution in flight at a time, the first outcome stands). */
export const chargeDecider: Decider<ChargeCommand, ChargeEvent, ChargeState> = {
  events: chargeCodec,
  initialState: () => ({ exists: false, found: false, pending: null, resolved: null }),
  evolve(s, e) {
    switch (e.type) {
      case 'ProviderChargeFound':
        return { ...s, exists: true, found: true };
      case 'ChargeResolutionStarted':
        return { ...s, exists: true, pending: e.data };
      case 'ChargeRefunded':
        return { ...s, exists: true, pending: null, resolved: { kind: 'refund', resolution_id: e.data.resolution_id, amount: e.data.amount, at: e.data.refunded_at } };
      case 'ChargeAppliedToInvoice':
        return { ...s, exists: true, pending: null, resolved: { kind: 'apply', resolution_id: e.data.resolution_id, amount: e.data.amount, at: e.data.applied_at } };
      case 'ChargeResolutionFailed':
        return { ...s, exists: true, pending: s.pending?.resolution_id === e.data.resolution_id ? null : s.pending };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'RecordProviderCharge': {
        // Known already (found by an earlier pass, or being or been resolved): a rerun records nothing.
        if (s.exists) return [];
        const { now, ...data } = c.data;
        return [{ type: 'ProviderChargeFound', data: { ...data, found_at: now } }];
      }
      case 'StartResolution': {
        const { now, due, ...d } = c.data;
        if (s.pending?.resolution_id === d.resolution_id) return [];
        if (s.resolved) {
          const done = s.resolved.kind === 'refund' ? 'refunded' : 'applied to another invoice';
          throw billingErrors.error('charge_not_due', `Nothing is due back on charge ${d.charge_ref}: it was already ${done}.`, { details: { resolution_id: s.resolved.resolution_id, kind: s.resolved.kind } });
        }
        if (s.pending) {
          throw billingErrors.error('charge_resolution_in_progress', `Charge ${d.charge_ref} is being resolved already; nothing more was done.`, {
            details: { resolution_id: s.pending.resolution_id, kind: s.pending.kind },
          });
        }
        if (!Number.isSafeInteger(due.amount) || due.amount <= 0) throw billingErrors.error('charge_not_due', `Nothing is due back on charge ${d.charge_ref}.`);
        if (d.kind === 'apply' && d.target_invoice_id === null) throw new Error('invariant broken: applying a charge names its invoice');
        return [{ type: 'ChargeResolutionStarted', data: { ...d, amount: due.amount, currency: due.currency, organization_id: due.organization_id, customer_id: due.customer_id, started_at: now } }];
      }
      case 'CompleteResolution': {
        const { resolution_id, outcome, now } = c.data;
        const p = s.pending;
        // Not the resolution in flight (finished already by a retry or a concurrent request): the first outcome stands.
        if (!p || p.resolution_id !== resolution_id) return [];
        const base = { charge_ref: p.charge_ref, resolution_id };
        switch (outcome.status) {
          case 'refunded':
            return [{ type: 'ChargeRefunded', data: { ...base, refund_ref: outcome.refund_ref, amount: p.amount, currency: p.currency, reason: p.reason, refunded_at: now } }];
          case 'applied':
            if (p.target_invoice_id === null) throw new Error('invariant broken: an applied resolution without its invoice');
            return [{ type: 'ChargeAppliedToInvoice', data: { ...base, invoice_id: p.target_invoice_id, payment_id: outcome.payment_id, amount: p.amount, currency: p.currency, reason: p.reason, applied_at: now } }];
          case 'failed':
            return [{ type: 'ChargeResolutionFailed', data: { ...base, code: outcome.code, message: outcome.message, failed_at: now } }];
          default:
            return assertNever(outcome);
        }
      }
      default:
        return assertNever(c);
    }
  },
};

/** Why money is due back on a charge. */
export type RefundDueCode = 'not_applied' | 'partly_applied' | 'unknown_at_service';

/** The readable text of each reason. */
export const REFUND_DUE_TEXT: Record<RefundDueCode, string> = {
  not_applied: 'Charged after the invoice no longer owed it (paid or voided by other means): nothing of it was applied.',
  partly_applied: 'Charged more than the invoice still owed: only part of it was applied as a payment.',
  unknown_at_service: 'Found at the payment provider by reconciliation: the service never recorded this charge.',
};

/** What the service knows of one charge, from every event about it (the billing.charges read model's document). */
export interface ChargeFacts {
  /** What the provider took; null while only a resolution is known (never happens in order, kept total). */
  charged: number | null;
  /** The most any record says was applied to the invoice (each record reports the whole applied part, not a delta). */
  applied: number;
  /** A service record (charge attempt, collection, payment page) knows it, besides reconciliation. */
  recorded: boolean;
  found: boolean;
  resolved: { amount: number } | null;
}

/** The amount due back on a charge and why, or null when nothing is (applied in full, resolved, or not a success). */
export function refundDue(f: ChargeFacts): { amount: number; code: RefundDueCode } | null {
  if (f.charged === null || f.resolved) return null;
  const amount = f.charged - f.applied;
  if (amount <= 0) return null;
  const code: RefundDueCode = f.applied > 0 ? 'partly_applied' : f.recorded ? 'not_applied' : 'unknown_at_service';
  return { amount, code };
}

/** Events of a provider's reconciliation stream (`reconciliation-<provider>`): how far its charges have been compared. */
export const reconciliationEvents = eventSchemas({
  /** The provider's charges made before `until` were compared with the service's records; `found` were unknown and recorded. */
  ProviderChargesReconciled: z.object({ provider: z.string(), since: EventInstant.nullable(), until: EventInstant, listed: z.number(), found: z.number(), at: EventInstant }),
});
/** A reconciliation event. */
export type ReconciliationEvent = EventOf<typeof reconciliationEvents>;
/** How reconciliation events are read. */
export const reconciliationCodec = eventCodec(reconciliationEvents);

/** What may be asked of a reconciliation stream: record a pass up to `until`. */
export type ReconciliationCommand = { type: 'RecordReconciliation'; data: { provider: string; since: string | null; until: string; listed: number; found: number; now: string } };

/** Where reconciliation of one provider stands: charges before `until` are compared (the next pass lists from there). */
export interface ReconciliationState {
  until: string | null;
}

/** Pure reconciliation decider: the checkpoint only moves forward. */
export const reconciliationDecider: Decider<ReconciliationCommand, ReconciliationEvent, ReconciliationState> = {
  events: reconciliationCodec,
  initialState: () => ({ until: null }),
  evolve: (s, e) => ({ until: s.until !== null && Date.parse(s.until) > Date.parse(e.data.until) ? s.until : e.data.until }),
  decide(c, s) {
    const { now, ...d } = c.data;
    if (s.until !== null && Date.parse(d.until) <= Date.parse(s.until)) return [];
    return [{ type: 'ProviderChargesReconciled', data: { ...d, at: now } }];
  },
};
