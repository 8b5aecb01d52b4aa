// The types of event the public billing feed carries (billing.events.list): its mappers write only these, and every
// screen that shows the feed has a sentence for each.
/** Every billing feed event type. */
export const FEED_EVENT_TYPES = [
  'customer.created', 'customer.updated', 'customer.removed', 'customer.access_suspended', 'customer.access_restored',
  'invoice.created', 'invoice.updated', 'invoice.finalized', 'invoice.voided', 'invoice.marked_uncollectible', 'invoice.paid', 'invoice.credited',
  'payment.recorded', 'payment.updated', 'payment.voided',
  'credit_note_request.created', 'credit_note_request.updated', 'credit_note_request.approved', 'credit_note_request.rejected', 'credit_note_request.cancelled', 'credit_note_request.issued',
] as const;

/** A billing feed event type. */
export type FeedEventType = (typeof FEED_EVENT_TYPES)[number];

