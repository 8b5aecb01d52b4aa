// The payment provider port: what billing needs of a card/bank-debit provider (Stripe, GoCardless, the sandbox).

/** What the payer must do next, provider-neutral. */
export type NextAction =
  | { type: 'redirect'; url: string; return_url: string }
  | { type: 'display_details'; details: Record<string, string> };

/** A setup's status as the provider reports it, mapped onto ours. */
export type ProviderSetupStatus = 'requires_action' | 'processing' | 'succeeded' | 'failed' | 'canceled';

/** A reusable method as the provider describes it (never a full number). */
export interface ProviderMethod {
  type: 'card' | 'bank_debit';
  provider_ref: string;
  brand: string | null;
  last4: string;
  exp_month: number | null;
  exp_year: number | null;
  bank_name: string | null;
  mandate_reference: string | null;
}

/** Who a setup belongs to on our side: carried by the provider (Stripe metadata, GoCardless metadata) and signed in notifications. */
export interface SetupOwner {
  setup_id: string;
  customer_id: string;
  organization_id: string;
}

/** The provider's view of one setup. */
export interface ProviderSetup {
  ref: string;
  status: ProviderSetupStatus;
  next_action: NextAction | null;
  method: ProviderMethod | null;
  failure: { code: string; message: string } | null;
  owner: SetupOwner;
}

/** A verified provider notification about a setup. */
export interface SetupNotification {
  id: string;
  setup: ProviderSetup;
}

/** Who a payment belongs to on our side: the attempt and the invoice it pays (provider metadata, signed in notifications). */
export interface PaymentOwner {
  attempt_id: string;
  invoice_id: string;
  customer_id: string;
  organization_id: string;
}

/** The provider's view of one payment (a Stripe PaymentIntent, a GoCardless payment). */
export interface ProviderPayment {
  ref: string;
  status: 'requires_action' | 'processing' | 'succeeded' | 'failed';
  amount: number;
  currency: string;
  /** The charge behind a succeeded payment. */
  charge_ref: string | null;
  next_action: NextAction | null;
  failure: { code: string; message: string } | null;
  owner: PaymentOwner;
}

/** A verified notification: about a setup, or about a payment. */
export type ProviderNotification = ({ kind: 'setup' } & SetupNotification) | { kind: 'payment'; id: string; payment: ProviderPayment };

/** The outcome of a charge. */
export type ChargeResult = { status: 'succeeded'; charge_ref: string; /** What was charged: the first request's amount when the idempotency key was used before. */ amount: number } | { status: 'failed'; charge_ref: string; code: string; message: string };

/** Who a charge belongs to on our side, as the charger told the provider (metadata); `attempt_id` is the invoice's charge attempt. */
export interface ChargeOwner {
  invoice_id: string;
  customer_id: string;
  organization_id: string;
  attempt_id: string | null;
}

/** The provider's record of one charge, as `listCharges` answers it (Stripe: a Charge). */
export interface ProviderCharge {
  charge_ref: string;
  status: 'succeeded' | 'failed';
  amount: number;
  currency: string;
  /** When the provider made it. */
  created_at: string;
  /** Null when the charger sent none (a charge made before owners were sent, or by hand at the provider). */
  owner: ChargeOwner | null;
  /** What the provider has refunded of it so far. */
  amount_refunded: number;
}

/** The outcome of a refund: the provider's refund reference, or why it refused (nothing was refunded). */
export type RefundResult = { status: 'succeeded'; refund_ref: string; amount: number } | { status: 'failed'; code: string; message: string };

/** A notification that failed verification (bad signature, stale timestamp, unreadable body); `issues` name the unreadable fields. */
export class NotificationRejected extends Error {
  constructor(
    message: string,
    readonly issues: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/** The port every provider adapter implements. */
export interface PaymentProvider {
  readonly name: string;
  /** Starts a setup of a reusable method; the answer carries the first next action. */
  createSetup(input: { owner: SetupOwner; type: 'card' | 'bank_debit'; return_url: string }): Promise<ProviderSetup>;
  /** The provider's current view of a setup (resume), or null when it does not know it. */
  getSetup(ref: string): Promise<ProviderSetup | null>;
  /** Verifies and reads a notification (raw body + headers); throws NotificationRejected. */
  handleNotification(raw: { body: string; headers: Record<string, string | undefined> }): Promise<ProviderNotification>;
  /**
   * Starts a payment of `amount` for `owner`: with a saved method it is charged at once (the outcome also arrives as a notification);
   * without one, the answer's next action sends the payer to the provider's page. The same idempotency key answers the same payment.
   */
  createPayment(input: { owner: PaymentOwner; amount: number; currency: string; method_ref: string | null; return_url: string; idempotency_key: string }): Promise<ProviderPayment>;
  /**
   * The provider's current view of the payment created with `idempotencyKey` (resume after a lost notification), or
   * null when it knows none. Stripe: a PaymentIntent search on the owner's metadata; GoCardless: payments by metadata.
   */
  findPayment(idempotencyKey: string): Promise<ProviderPayment | null>;
  /** The provider's current record of the payment `ref` names, or null when it knows none. Stripe: retrieve the PaymentIntent. */
  getPayment(ref: string): Promise<ProviderPayment | null>;
  /** Charges a method; repeating with the same idempotency key answers the first outcome and charges once. */
  charge(input: { method_ref: string; amount: number; currency: string; idempotency_key: string; owner?: ChargeOwner }): Promise<ChargeResult>;
  /**
   * Gives back `amount` of a succeeded charge (all or part of what is left of it); the same idempotency key answers the first
   * refund and refunds once. Stripe: `POST /v1/refunds {charge, amount, reason, metadata}` with the `Idempotency-Key` header.
   */
  refund(input: { charge_ref: string; amount: number; currency: string; idempotency_key: string; reason: string }): Promise<RefundResult>;
  /**
   * The provider's charges made at or after `since`, oldest first (reconciliation). Stripe: `GET /v1/charges?created[gte]=<unix>`
   * paged with `starting_after`; the owner is the charge's (its PaymentIntent's) metadata.
   */
  listCharges(since: Date): Promise<ProviderCharge[]>;
}
