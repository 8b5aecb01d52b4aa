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

/** The outcome of a charge. */
export type ChargeResult = { status: 'succeeded'; charge_ref: string } | { status: 'failed'; charge_ref: string; code: string; message: string };

/** A notification that failed verification (bad signature, stale timestamp, unreadable body). */
export class NotificationRejected extends Error {}

/** The port every provider adapter implements. */
export interface PaymentProvider {
  readonly name: string;
  /** Starts a setup of a reusable method; the answer carries the first next action. */
  createSetup(input: { owner: SetupOwner; type: 'card' | 'bank_debit'; return_url: string }): Promise<ProviderSetup>;
  /** The provider's current view of a setup (resume), or null when it does not know it. */
  getSetup(ref: string): Promise<ProviderSetup | null>;
  /** Verifies and reads a notification (raw body + headers); throws NotificationRejected. */
  handleNotification(raw: { body: string; headers: Record<string, string | undefined> }): Promise<SetupNotification>;
  /** Charges a method; repeating with the same idempotency key answers the first outcome and charges once. */
  charge(input: { method_ref: string; amount: number; currency: string; idempotency_key: string }): Promise<ChargeResult>;
}
