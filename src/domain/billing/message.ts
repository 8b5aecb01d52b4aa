// Customer message aggregate (`message-<id>`, issue 28): one email to a customer's billing address. The message is decided
// first, under an id derived from what it is about (so it is decided once, whoever asks again), then each delivery attempt's
// outcome is an event: delivered, or failed with when the next attempt is due (none after the last: staff are told).
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { EventId, EventInstant } from '../event-fields.ts';
import { DataSubjectErasedSchema, personal } from '../personal.ts';

// The recipient's address, and what the mail server answered (it may quote the address): personal data of the message,
// erased with the customer it was sent to (issue 32).
const personalText = (idField?: string) => personal(z.string(), { kind: 'message', ...(idField ? { idField } : {}) });

/** Why a customer is written to. */
export const MessageKindSchema = z.enum(['invoice_finalized', 'payment_received', 'credit_note_issued', 'invoice_reminder']);
/** Why a customer is written to. */
export type MessageKind = z.infer<typeof MessageKindSchema>;

/** Minutes to wait after failed attempt n (1-based) before attempt n + 1; after the last listed, the message is given up. */
export const RETRY_MINUTES = [1, 5, 30, 120];

/** What a message is about: the document it attaches. */
export const MessageSubjectSchema = z.object({ type: z.enum(['invoice', 'payment', 'credit_note']), id: z.string() });

/** Events of a message stream. */
export const messageEvents = eventSchemas({
  MessageDecided: z.object({
    message_id: EventId,
    organization_id: EventId,
    customer_id: EventId,
    invoice_id: z.string(),
    kind: MessageKindSchema,
    subject: MessageSubjectSchema,
    /** Which occasion of the kind: `finalized`, a payment or credit id, or a reminder's day relative to the due date (`due-3`, `due+7`). */
    occasion: z.string(),
    to: personalText('message_id'),
    subject_line: z.string(),
    payment_url: z.string(),
    decided_at: EventInstant,
  }),
  MessageDelivered: z.object({ attempt: z.number(), transport: z.enum(['smtp', 'outbox']), response: personalText(), delivered_at: EventInstant }),
  MessageDeliveryFailed: z.object({ attempt: z.number(), error: personalText(), next_attempt_at: EventInstant.nullable(), failed_at: EventInstant }),
  /** The recipient and the server's answers were erased with the customer (issue 32). */
  MessageErased: DataSubjectErasedSchema,
});
/** A message event. */
export type MessageEvent = EventOf<typeof messageEvents>;
/** How message events are read. */
export const messageCodec = eventCodec(messageEvents);
/** What a message says when decided. */
export type MessageFacts = Omit<Extract<MessageEvent, { type: 'MessageDecided' }>['data'], 'decided_at'>;

/** What may be asked of a message. */
export type MessageCommand =
  | { type: 'DecideMessage'; data: MessageFacts & { now: string } }
  | { type: 'RecordDelivery'; data: { attempt: number; outcome: { status: 'delivered'; transport: 'smtp' | 'outbox'; response: string } | { status: 'failed'; error: string }; now: string } }
  | { type: 'EraseMessage'; data: Omit<z.infer<typeof DataSubjectErasedSchema>, 'erased_at'> & { now: string } };

/** Where a message stands. */
export interface MessageState {
  status: 'none' | 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  facts: MessageFacts | null;
  erased: boolean;
}

/** Whether a delivery attempt is due now: decided, neither delivered nor given up, and its retry time reached. */
export function deliveryDue(s: MessageState, now: Date): boolean {
  return s.status === 'pending' && (s.nextAttemptAt === null || new Date(s.nextAttemptAt).getTime() <= now.getTime());
}

/** Pure message decider: deciding an existing message, or recording an attempt already recorded, decides nothing. */
export const messageDecider: Decider<MessageCommand, MessageEvent, MessageState> = {
  events: messageCodec,
  initialState: () => ({ status: 'none', attempts: 0, nextAttemptAt: null, facts: null, erased: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'MessageDecided': {
        const { decided_at: _, ...facts } = event.data;
        return { ...state, status: 'pending', facts };
      }
      case 'MessageDelivered':
        return { ...state, status: 'delivered', attempts: event.data.attempt, nextAttemptAt: null };
      case 'MessageDeliveryFailed':
        return { ...state, status: event.data.next_attempt_at === null ? 'failed' : 'pending', attempts: event.data.attempt, nextAttemptAt: event.data.next_attempt_at };
      case 'MessageErased':
        // Nobody to write to any more: a pending message is given up.
        return { ...state, erased: true, status: state.status === 'pending' ? 'failed' : state.status, nextAttemptAt: null };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'DecideMessage': {
        if (state.status !== 'none') return [];
        const { now, ...facts } = command.data;
        return [{ type: 'MessageDecided', data: { ...facts, decided_at: now } }];
      }
      case 'RecordDelivery': {
        const { attempt, outcome, now } = command.data;
        if (state.status !== 'pending' || attempt <= state.attempts) return [];
        if (outcome.status === 'delivered') return [{ type: 'MessageDelivered', data: { attempt, transport: outcome.transport, response: outcome.response, delivered_at: now } }];
        const wait = RETRY_MINUTES[attempt - 1];
        const next = wait === undefined ? null : new Date(new Date(now).getTime() + wait * 60_000).toISOString();
        return [{ type: 'MessageDeliveryFailed', data: { attempt, error: outcome.error, next_attempt_at: next, failed_at: now } }];
      }
      case 'EraseMessage': {
        if (state.status === 'none' || state.erased) return [];
        const { now, ...erasure } = command.data;
        return [{ type: 'MessageErased', data: { ...erasure, erased_at: now } }];
      }
      default:
        return assertNever(command);
    }
  },
};
