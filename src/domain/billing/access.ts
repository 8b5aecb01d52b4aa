// Access aggregate (`access-<customer_id>`): suspension of an organization's access for non-payment.
// Policy: access is suspended from the due date of the oldest unpaid invoice + grace days (anchored to
// the due date), and restored as soon as no unpaid invoice has reached its suspension date.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { addDays } from '../../clock.ts';
import { EventId } from '../event-fields.ts';

/** An open invoice with money still owed, as the policy sees it. */
export interface UnpaidInvoice {
  invoice_id: string;
  number: string | null;
  due_date: string;
  amount_remaining: number;
  currency: string;
}

/** Events of an access stream. */
export const accessEvents = eventSchemas({
  AccessSuspended: z.object({
    customer_id: EventId,
    organization_id: EventId,
    suspension_date: z.string(),
    oldest_due_date: z.string(),
    grace_days: z.number(),
    invoice_ids: z.array(z.string()),
    suspended_at: z.string(),
  }),
  AccessRestored: z.object({ customer_id: EventId, organization_id: EventId, restored_at: z.string() }),
});

/** An access event (derived from `accessEvents`). */
export type AccessEvent = EventOf<typeof accessEvents>;

/** How access events are read. */
export const accessCodec = eventCodec(accessEvents);

/** Review an organization's access against its unpaid invoices. */
export type AccessCommand = {
  type: 'ReviewAccess';
  data: { customer_id: string; organization_id: string; today: string; grace_days: number; unpaid: UnpaidInvoice[]; now: string };
};

/** Whether access is suspended now. */
export interface AccessState {
  suspended: boolean;
}

/** Whole days from `a` to `b` (positive when b is later). */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

/** Invoices whose due date is before `today`. */
export function pastDue(unpaid: UnpaidInvoice[], today: string): UnpaidInvoice[] {
  return unpaid.filter((i) => i.amount_remaining > 0 && i.due_date < today);
}

/** The date access is (or will be) suspended: oldest past-due invoice's due date + grace days; null when nothing is past due. */
export function suspensionDate(unpaid: UnpaidInvoice[], today: string, graceDays: number): { date: string; oldestDueDate: string } | null {
  const dates = pastDue(unpaid, today).map((i) => i.due_date);
  if (dates.length === 0) return null;
  const oldest = dates.reduce((min, d) => (d < min ? d : min));
  return { date: addDays(oldest, graceDays), oldestDueDate: oldest };
}

/** Pure access decider: a review suspends or restores access as the policy says; otherwise nothing. */
export const accessDecider: Decider<AccessCommand, AccessEvent, AccessState> = {
  events: accessCodec,
  initialState: () => ({ suspended: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'AccessSuspended':
        return { suspended: true };
      case 'AccessRestored':
        return { suspended: false };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ReviewAccess': {
        const { customer_id, organization_id, today, grace_days, unpaid, now } = command.data;
        const due = suspensionDate(unpaid, today, grace_days);
        const shouldSuspend = due !== null && due.date <= today;
        if (shouldSuspend && !state.suspended) {
          const invoice_ids = pastDue(unpaid, today).filter((i) => addDays(i.due_date, grace_days) <= today).map((i) => i.invoice_id).sort();
          return [{ type: 'AccessSuspended', data: { customer_id, organization_id, suspension_date: due.date, oldest_due_date: due.oldestDueDate, grace_days, invoice_ids, suspended_at: now } }];
        }
        if (!shouldSuspend && state.suspended) return [{ type: 'AccessRestored', data: { customer_id, organization_id, restored_at: now } }];
        return [];
      }
      default:
        return assertNever(command.type);
    }
  },
};
