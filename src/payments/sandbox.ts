// The sandbox provider: a real provider's behaviour (hosted page, signed asynchronous notifications, idempotent charges) inside this service.
import crypto from 'node:crypto';
import { z } from 'zod';
import type { Services } from '../context.ts';
import { NotificationRejected, type ChargeOwner, type ChargeResult, type PaymentOwner, type ProviderCharge, type RefundResult, type PaymentProvider, type ProviderMethod, type ProviderNotification, type ProviderPayment, type ProviderSetup, type SetupOwner } from './port.ts';
import { signPayload, signatureProblem } from './signature.ts';

/** The well-known test numbers of the sandbox. */
export const TEST_CARDS = { succeeds: '4242424242424242', declined: '4000000000000002', requiresAction: '4000002500003155', chargeDeclined: '4000000000000341' } as const;

/** Where the sandbox posts its notifications (relative to the service's base URL). */
export const SANDBOX_WEBHOOK_PATH = '/webhooks/payments/sandbox';
/** The header carrying the notification signature. */
export const SANDBOX_SIGNATURE_HEADER = 'sandbox-signature';

/** The sandbox's own record of a setup (its "servers"). */
interface SandboxSetup {
  setup: ProviderSetup;
  type: 'card' | 'bank_debit';
  stage: 'entry' | 'extra_step' | 'done';
  return_url: string;
}

const Method = z.object({
  type: z.enum(['card', 'bank_debit']), provider_ref: z.string(), brand: z.string().nullable(), last4: z.string(),
  exp_month: z.number().nullable(), exp_year: z.number().nullable(), bank_name: z.string().nullable(), mandate_reference: z.string().nullable(),
});
const NextActionSchema = z.union([
  z.object({ type: z.literal('redirect'), url: z.string(), return_url: z.string() }),
  z.object({ type: z.literal('display_details'), details: z.record(z.string(), z.string()) }),
]);
/** The sandbox's own record of a charge (currency and owner kept since reconciliation; older rows lack them). */
type StoredCharge = { charge_ref: string; currency?: string; owner?: ChargeOwner | null } & ({ status: 'succeeded'; amount?: number } | { status: 'failed'; code: string; message: string });

/** The sandbox's own record of a payment. */
interface SandboxPayment {
  payment: ProviderPayment;
  stage: 'entry' | 'done';
  return_url: string;
}

const Failure = z.object({ code: z.string(), message: z.string() }).nullable();
// Event ids and object references: what a provider issues (evt_..., pi_..., seti_...). Bounded plain text, so neither reaches
// a lookup or an event as NUL, a lone surrogate or 60 KB.
const ProviderId = z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/, 'must be 1-200 letters, digits, _ . : or -');
const PaymentNotification = z.object({
  id: ProviderId,
  type: z.literal('payment.updated'),
  payment: z.object({
    ref: ProviderId, status: z.enum(['requires_action', 'processing', 'succeeded', 'failed']), amount: z.number().int(), currency: z.string(),
    charge_ref: z.string().nullable(), next_action: NextActionSchema.nullable(), failure: Failure,
    owner: z.object({ attempt_id: z.string(), invoice_id: z.string(), customer_id: z.string(), organization_id: z.string() }),
  }),
});
const SetupNotification = z.object({
  id: ProviderId,
  type: z.literal('setup.updated'),
  setup: z.object({
    ref: ProviderId, status: z.enum(['requires_action', 'processing', 'succeeded', 'failed', 'canceled']), next_action: NextActionSchema.nullable(),
    method: Method.nullable(), failure: z.object({ code: z.string(), message: z.string() }).nullable(),
    owner: z.object({ setup_id: z.string(), customer_id: z.string(), organization_id: z.string() }),
  }).refine((s) => s.status !== 'succeeded' || s.method !== null, { message: 'a succeeded setup carries its method', path: ['method'] }),
});
const Notification = z.discriminatedUnion('type', [SetupNotification, PaymentNotification]);

/** The sandbox adapter over the service's database; also what the hosted page drives. */
export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox';
  constructor(private readonly services: Pick<Services, 'config' | 'knex' | 'clock' | 'logger'>) {}

  private get secret(): string {
    return this.services.config.sandboxWebhookSecret;
  }

  async createSetup(input: { owner: SetupOwner; type: 'card' | 'bank_debit'; return_url: string }): Promise<ProviderSetup> {
    const ref = `seti_sbx_${crypto.randomUUID().replace(/-/g, '')}`;
    const setup: ProviderSetup = {
      ref, status: 'requires_action', method: null, failure: null, owner: input.owner,
      next_action: { type: 'redirect', url: `${this.services.config.baseUrl}/sandbox/setup/${ref}`, return_url: input.return_url },
    };
    await this.save({ setup, type: input.type, stage: 'entry', return_url: input.return_url });
    return setup;
  }

  async getSetup(ref: string): Promise<ProviderSetup | null> {
    return (await this.load(ref))?.setup ?? null;
  }

  async handleNotification(raw: { body: string; headers: Record<string, string | undefined> }): Promise<ProviderNotification> {
    const problem = signatureProblem(this.secret, raw.body, raw.headers[SANDBOX_SIGNATURE_HEADER], this.services.clock.now());
    if (problem) throw new NotificationRejected(problem);
    let json: unknown;
    try {
      json = JSON.parse(raw.body);
    } catch {
      throw new NotificationRejected('body is not JSON');
    }
    const parsed = Notification.safeParse(json);
    if (!parsed.success) throw new NotificationRejected('unreadable notification', parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })));
    const n = parsed.data;
    return n.type === 'setup.updated' ? { kind: 'setup', id: n.id, setup: n.setup } : { kind: 'payment', id: n.id, payment: n.payment };
  }

  async createPayment(input: { owner: PaymentOwner; amount: number; currency: string; method_ref: string | null; return_url: string; idempotency_key: string }): Promise<ProviderPayment> {
    const knex = this.services.knex;
    const ref = `pi_sbx_${crypto.randomUUID().replace(/-/g, '')}`;
    const payment: ProviderPayment = {
      ref, status: 'requires_action', amount: input.amount, currency: input.currency, charge_ref: null, failure: null, owner: input.owner,
      next_action: input.method_ref ? null : { type: 'redirect', url: `${this.services.config.baseUrl}/sandbox/pay/${ref}`, return_url: input.return_url },
    };
    await knex('sandbox_provider_payments').insert({ id: ref, idempotency_key: input.idempotency_key, doc: JSON.stringify({ payment, stage: 'entry', return_url: input.return_url }) }).onConflict('idempotency_key').ignore();
    // The same key answers the payment made first, whatever its state now (a retry charges nothing more).
    const stored = await this.paymentByKey(input.idempotency_key);
    if (!stored) throw new Error(`sandbox payment ${input.idempotency_key} was not stored`);
    if (stored.payment.ref !== ref || !input.method_ref) return stored.payment;
    return this.settlePayment(stored, input.method_ref);
  }

  async findPayment(idempotencyKey: string): Promise<ProviderPayment | null> {
    return (await this.paymentByKey(idempotencyKey))?.payment ?? null;
  }

  async getPayment(ref: string): Promise<ProviderPayment | null> {
    return (await this.loadPayment(ref))?.payment ?? null;
  }

  private async paymentByKey(idempotencyKey: string): Promise<SandboxPayment | null> {
    const row = await this.services.knex('sandbox_provider_payments').where({ idempotency_key: idempotencyKey }).first('doc');
    return row ? (row.doc as SandboxPayment) : null;
  }

  /** A payment as the hosted payment page needs it, or null. */
  async paymentPageState(ref: string): Promise<{ amount: number; currency: string; stage: SandboxPayment['stage']; status: ProviderPayment['status']; return_url: string } | null> {
    const p = await this.loadPayment(ref);
    return p && { amount: p.payment.amount, currency: p.payment.currency, stage: p.stage, status: p.payment.status, return_url: p.return_url };
  }

  /** The payer entered a card on the hosted payment page: 'invalid' leaves the page as it was. */
  async submitPaymentCard(ref: string, number: string): Promise<'invalid' | 'done'> {
    const p = await this.loadPayment(ref);
    const digits = number.replace(/\s+/g, '');
    if (!p || p.stage !== 'entry') return 'invalid';
    if (digits === TEST_CARDS.declined) await this.finishPayment(p, { status: 'failed', failure: { code: 'card_declined', message: 'The card was declined.' } });
    else if (digits === TEST_CARDS.succeeds || digits === TEST_CARDS.chargeDeclined) await this.settlePayment(p, cardMethod(ref, digits).provider_ref);
    else return 'invalid';
    return 'done';
  }

  // Charges the method (idempotent on the payment) and finishes the payment with the outcome.
  private async settlePayment(p: SandboxPayment, methodRef: string): Promise<ProviderPayment> {
    const { attempt_id, invoice_id, customer_id, organization_id } = p.payment.owner;
    const owner = { invoice_id, customer_id, organization_id, attempt_id };
    const charge = await this.charge({ method_ref: methodRef, amount: p.payment.amount, currency: p.payment.currency, idempotency_key: p.payment.ref, owner });
    return this.finishPayment(p, charge.status === 'succeeded' ? { status: 'succeeded', charge_ref: charge.charge_ref } : { status: 'failed', failure: { code: charge.code, message: charge.message } });
  }

  // Records the outcome and notifies the service (signed, like every notification); the payer's page follows.
  private async finishPayment(p: SandboxPayment, outcome: { status: 'succeeded'; charge_ref: string } | { status: 'failed'; failure: { code: string; message: string } }): Promise<ProviderPayment> {
    const payment: ProviderPayment = { ...p.payment, ...outcome, next_action: null };
    await this.services.knex('sandbox_provider_payments').where({ id: payment.ref }).update({ doc: JSON.stringify({ ...p, stage: 'done', payment }) });
    await this.send({ type: 'payment.updated', payment }, payment.ref);
    return payment;
  }

  private async loadPayment(ref: string): Promise<SandboxPayment | null> {
    const row = await this.services.knex('sandbox_provider_payments').where({ id: ref }).first('doc');
    return row ? (row.doc as SandboxPayment) : null;
  }

  async charge(input: { method_ref: string; amount: number; currency: string; idempotency_key: string; owner?: ChargeOwner }): Promise<ChargeResult> {
    // A repeated key answers the first charge, whatever this request's amount (sandbox charges stored before
    // amounts were kept read with this request's).
    const first = (doc: StoredCharge): ChargeResult =>
      doc.status === 'succeeded' ? { status: 'succeeded', charge_ref: doc.charge_ref, amount: doc.amount ?? input.amount } : { status: 'failed', charge_ref: doc.charge_ref, code: doc.code, message: doc.message };
    const found = await this.services.knex('sandbox_provider_charges').where({ idempotency_key: input.idempotency_key }).first('doc');
    if (found) return first(found.doc as StoredCharge);
    const declined = input.method_ref.endsWith(`_${TEST_CARDS.chargeDeclined.slice(-4)}`);
    const charge_ref = `ch_sbx_${crypto.randomUUID().replace(/-/g, '')}`;
    const kept = { currency: input.currency, owner: input.owner ?? null };
    const result: StoredCharge = declined ? { status: 'failed', charge_ref, code: 'card_declined', message: 'The card was declined.', ...kept } : { status: 'succeeded', charge_ref, amount: input.amount, ...kept };
    await this.services.knex('sandbox_provider_charges').insert({ idempotency_key: input.idempotency_key, created_at: this.services.clock.now(), doc: JSON.stringify(result) }).onConflict('idempotency_key').ignore();
    const stored = await this.services.knex('sandbox_provider_charges').where({ idempotency_key: input.idempotency_key }).first('doc');
    return first(stored.doc as StoredCharge);
  }

  async refund(input: { charge_ref: string; amount: number; currency: string; idempotency_key: string; reason: string }): Promise<RefundResult> {
    const earlier = await this.services.knex('sandbox_provider_refunds').where({ idempotency_key: input.idempotency_key }).first('doc');
    if (earlier) return earlier.doc as RefundResult;
    const refused = (code: string, message: string): RefundResult => ({ status: 'failed', code, message });
    // One refund of a charge at a time (the charge's row is locked), so two keys never refund more than was charged.
    return this.services.knex.transaction(async (trx) => {
      const row = await trx('sandbox_provider_charges').whereRaw(`doc->>'charge_ref' = ?`, [input.charge_ref]).forUpdate().first('doc');
      const charge = row ? (row.doc as StoredCharge) : null;
      const again = await trx('sandbox_provider_refunds').where({ idempotency_key: input.idempotency_key }).first('doc');
      if (again) return again.doc as RefundResult;
      if (!charge || charge.status !== 'succeeded') return refused('charge_not_found', `No succeeded charge ${input.charge_ref}.`);
      if (charge.currency !== undefined && charge.currency !== input.currency) return refused('currency_mismatch', `The charge is in ${charge.currency}.`);
      const refunded = Number((await trx('sandbox_provider_refunds').where({ charge_ref: input.charge_ref }).whereRaw(`doc->>'status' = 'succeeded'`).sum({ n: trx.raw(`(doc->>'amount')::bigint`) }))[0]?.n ?? 0);
      const left = (charge.amount ?? 0) - refunded;
      if (!Number.isSafeInteger(input.amount) || input.amount <= 0 || input.amount > left) return refused('amount_too_large', `At most ${left} ${input.currency} of the charge is left to refund.`);
      const result: RefundResult = { status: 'succeeded', refund_ref: `re_sbx_${crypto.randomUUID().replace(/-/g, '')}`, amount: input.amount };
      await trx('sandbox_provider_refunds').insert({ idempotency_key: input.idempotency_key, charge_ref: input.charge_ref, created_at: this.services.clock.now(), doc: JSON.stringify({ ...result, reason: input.reason }) });
      return result;
    });
  }

  async listCharges(since: Date): Promise<ProviderCharge[]> {
    const knex = this.services.knex;
    const rows = (await knex('sandbox_provider_charges').where('created_at', '>=', since).orderBy('created_at').orderBy('idempotency_key').select('created_at', 'doc')) as { created_at: Date | string; doc: StoredCharge }[];
    const refunds = rows.length
      ? ((await knex('sandbox_provider_refunds').whereIn('charge_ref', rows.map((r) => r.doc.charge_ref)).whereRaw(`doc->>'status' = 'succeeded'`).select('charge_ref', 'doc')) as { charge_ref: string; doc: { amount: number } }[])
      : [];
    return rows.map((r) => ({
      charge_ref: r.doc.charge_ref,
      status: r.doc.status,
      amount: r.doc.status === 'succeeded' ? (r.doc.amount ?? 0) : 0,
      currency: r.doc.currency ?? '',
      created_at: new Date(r.created_at).toISOString(),
      owner: r.doc.owner ?? null,
      amount_refunded: refunds.filter((x) => x.charge_ref === r.doc.charge_ref).reduce((sum, x) => sum + x.doc.amount, 0),
    }));
  }


  /** The setup as the hosted page needs it, or null. */
  async pageState(ref: string): Promise<{ type: 'card' | 'bank_debit'; stage: SandboxSetup['stage']; status: ProviderSetup['status']; return_url: string } | null> {
    const s = await this.load(ref);
    return s && { type: s.type, stage: s.stage, status: s.setup.status, return_url: s.return_url };
  }

  /** The payer entered a card number: 'invalid' leaves the page as it was. */
  async submitCard(ref: string, number: string): Promise<'invalid' | 'extra_step' | 'done'> {
    const s = await this.load(ref);
    if (!s || s.stage !== 'entry' || s.type !== 'card') return 'invalid';
    const digits = number.replace(/\s+/g, '');
    if (digits === TEST_CARDS.requiresAction) {
      await this.save({ ...s, stage: 'extra_step' });
      return 'extra_step';
    }
    if (digits === TEST_CARDS.succeeds || digits === TEST_CARDS.chargeDeclined) await this.finish(s, { method: cardMethod(ref, digits) });
    else if (digits === TEST_CARDS.declined) await this.finish(s, { failure: { code: 'card_declined', message: 'The card was declined.' } });
    else return 'invalid';
    return 'done';
  }

  /** The payer passed (or failed) the extra authentication step. */
  async completeExtraStep(ref: string, passed: boolean): Promise<boolean> {
    const s = await this.load(ref);
    if (!s || s.stage !== 'extra_step') return false;
    await this.finish(s, passed ? { method: cardMethod(ref, TEST_CARDS.requiresAction) } : { failure: { code: 'authentication_failed', message: 'The payer did not complete authentication.' } });
    return true;
  }

  /** The payer confirmed a bank debit mandate (sandbox account ending 6789). */
  async confirmMandate(ref: string): Promise<boolean> {
    const s = await this.load(ref);
    if (!s || s.stage !== 'entry' || s.type !== 'bank_debit') return false;
    const method: ProviderMethod = { type: 'bank_debit', provider_ref: `pm_sbx_${ref}`, brand: null, last4: '6789', exp_month: null, exp_year: null, bank_name: 'Sandbox Bank', mandate_reference: `MD-${ref.slice(-8).toUpperCase()}` };
    await this.finish(s, { method });
    return true;
  }

  // Moves the setup to processing and then its outcome, notifying the service of each step.
  private async finish(s: SandboxSetup, outcome: { method?: ProviderMethod; failure?: { code: string; message: string } }): Promise<void> {
    const processing: ProviderSetup = { ...s.setup, status: 'processing', next_action: null };
    await this.save({ ...s, stage: 'done', setup: processing });
    await this.notify(processing);
    const final: ProviderSetup = outcome.method
      ? { ...processing, status: 'succeeded', method: outcome.method }
      : { ...processing, status: 'failed', failure: outcome.failure ?? null };
    await this.save({ ...s, stage: 'done', setup: final });
    await this.notify(final);
  }

  /** Signs and POSTs a setup notification to the service's webhook; a failed delivery is left to `get`'s resume. */
  async notify(setup: ProviderSetup): Promise<void> {
    await this.send({ type: 'setup.updated', setup }, setup.ref);
  }

  // Signs and POSTs one notification to the service's webhook.
  private async send(event: { type: 'setup.updated'; setup: ProviderSetup } | { type: 'payment.updated'; payment: ProviderPayment }, ref: string): Promise<void> {
    const body = JSON.stringify({ id: `evt_sbx_${crypto.randomUUID().replace(/-/g, '')}`, ...event });
    try {
      await fetch(`${this.services.config.baseUrl}${SANDBOX_WEBHOOK_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signPayload(this.secret, body, this.services.clock.now()) },
        body,
      });
    } catch (err) {
      this.services.logger.warn({ err, ref }, 'sandbox notification not delivered');
    }
  }

  private async load(ref: string): Promise<SandboxSetup | null> {
    const row = await this.services.knex('sandbox_provider_setups').where({ id: ref }).first('doc');
    return row ? (row.doc as SandboxSetup) : null;
  }

  private async save(s: SandboxSetup): Promise<void> {
    await this.services.knex('sandbox_provider_setups').insert({ id: s.setup.ref, doc: JSON.stringify(s) }).onConflict('id').merge();
  }
}

function cardMethod(ref: string, digits: string): ProviderMethod {
  return { type: 'card', provider_ref: `pm_sbx_${ref}_${digits.slice(-4)}`, brand: 'visa', last4: digits.slice(-4), exp_month: 12, exp_year: 2030, bank_name: null, mandate_reference: null };
}

