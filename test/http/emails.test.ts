// Issue 28 item 8: customer emails through a real SMTP server started here. An invoice finalized, a payment received and a
// credit note issued each send one email with its PDF and the payment link; reminders follow the due date as the clock moves;
// a refusing server is retried with backoff and then shown under Needs attention; a restarted worker never sends twice.
import { expect } from 'chai';
import pino from 'pino';
import { TestClock } from '../../src/clock.ts';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { runMessagesPass } from '../../src/workers/billing/messages.ts';
import { formatDate } from '../../src/documents/money.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, billedOrg, billingStaff, openInvoice, paymentBody } from '../support/billing.ts';
import { ops } from '../support/ops.ts';
import { pdfText } from '../support/pdf.ts';
import { settle } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

for (const backend of backends()) {
  describe(`customer emails over SMTP (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let smtp: TestSmtp;
    let staff: string;
    const clock = new TestClock('2026-03-10T09:00:00.000Z');
    const env = () => ({ SMTP_URL: smtp.url, EMAIL_FROM: 'billing@northwind.example', INVOICE_SELLER_NAME: 'Northwind Billing Ltd' });
    const pass = async () => {
      const r = await runMessagesPass(svc.app);
      await settle(svc);
      return r;
    };
    const to = (who: BilledOrg) => smtp.received.filter((m) => m.to && !Array.isArray(m.to) && m.to.text === `ap+${who.orgId.slice(-12)}@example.com`);
    const customerMessages = async (who: BilledOrg) => (await svc.call(ops['billing.messages.list'], { customer_id: who.customerId, limit: 200 }, staff)).body.items;
    // Each test's customer has a billing email of its own, so what arrived is told apart by recipient.
    const customer = async () => {
      const who = await billedOrg(svc);
      expect((await svc.call(ops['billing.customers.update'], { id: who.customerId, email: `ap+${who.orgId.slice(-12)}@example.com` }, staff)).status).to.equal(200);
      return who;
    };

    before(async () => {
      smtp = await startSmtp();
      svc = await startService(backend, { clock, env: env() });
      staff = await billingStaff(svc);
    });
    after(async () => {
      await svc?.close();
      await smtp?.close();
    });
    beforeEach(() => {
      smtp.refuse = null;
      smtp.delayMs = 0;
    });

    it('finalizing sends the customer one email with the invoice PDF and the payment link; a payment and a credit note send theirs', async () => {
      const acme = await customer();
      const inv = await openInvoice(svc, staff, acme.customerId, [138_650]);
      const first = await pass();
      expect(first.delivered).to.have.length(1);
      const [mail] = to(acme);
      expect(mail, 'the finalize email arrived').to.not.equal(undefined);
      if (!mail) return;
      expect(mail.from?.text).to.equal('billing@northwind.example');
      expect(mail.subject).to.equal(`Invoice ${inv.number} from Northwind Billing Ltd: £1,386.50 due 9 April 2026`);
      expect(mail.text).to.include(`/billing/pay/${acme.customerId}`).and.to.include('Amount due: £1,386.50');
      expect(mail.attachments.map((a) => [a.filename, a.contentType])).to.deep.equal([[`invoice-${inv.number}.pdf`, 'application/pdf']]);
      const pdf = await pdfText(mail.attachments[0]?.content ?? Buffer.alloc(0));
      expect(pdf).to.include(String(inv.number)).and.to.include('£1,386.50').and.to.include(`/billing/pay/${acme.customerId}`);

      // Another pass sends nothing again.
      expect((await pass()).delivered).to.deep.equal([]);
      expect(to(acme)).to.have.length(1);

      await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 38_650, { reference: 'BACS-99' }), staff);
      const cn = await svc.call(ops['billing.credit-note-requests.insert'], { invoice_id: inv.id, amount: 10_000, currency: 'GBP', reason: 'duplicate', description: 'Charged twice' }, acme.token);
      await svc.call(ops['billing.credit-note-requests.update'], { id: cn.body.id, action: 'approve' }, staff);
      await svc.call(ops['billing.credit-note-requests.update'], { id: cn.body.id, action: 'issue' }, staff);
      await settle(svc);
      expect((await pass()).delivered).to.have.length(2);
      const subjects = to(acme).map((m) => m.subject);
      expect(subjects).to.include(`Payment received for invoice ${inv.number}: £386.50`).and.to.include(`Credit note for invoice ${inv.number}: £100.00`);
      const receipt = to(acme).find((m) => m.subject?.startsWith('Payment received'));
      expect(await pdfText(receipt?.attachments[0]?.content ?? Buffer.alloc(0))).to.include('Payment receipt').and.to.include('BACS-99');

      // Every message is visible for the customer: what, to whom, when, delivered over SMTP.
      const listed = await customerMessages(acme);
      expect(listed.map((m) => [m.kind, m.status, m.transport, m.to])).to.have.deep.members([
        ['invoice_finalized', 'delivered', 'smtp', `ap+${acme.orgId.slice(-12)}@example.com`],
        ['payment_received', 'delivered', 'smtp', `ap+${acme.orgId.slice(-12)}@example.com`],
        ['credit_note_issued', 'delivered', 'smtp', `ap+${acme.orgId.slice(-12)}@example.com`],
      ]);
    });

    it('a server refusing for a while is retried with backoff until it takes the message; one refusing on every retry is listed under Needs attention and counted', async () => {
      const acme = await customer();
      smtp.refuse = { code: 451, message: 'Try again later' };
      await openInvoice(svc, staff, acme.customerId, [5_000]);
      expect((await pass()).failed).to.have.length(1);
      let [m] = await customerMessages(acme);
      expect(m).to.include({ status: 'pending', attempts: 1 });
      expect(m?.last_error).to.include('Try again later');
      expect(m?.next_attempt_at).to.equal(new Date(clock.now().getTime() + 60_000).toISOString());
      // Not before its retry time.
      expect((await pass()).failed).to.deep.equal([]);
      clock.advance(60_000);
      expect((await pass()).failed).to.have.length(1);
      smtp.refuse = null;
      clock.advance(5 * 60_000);
      expect((await pass()).delivered).to.have.length(1);
      expect(to(acme)).to.have.length(1);
      [m] = await customerMessages(acme);
      expect(m).to.include({ status: 'delivered', attempts: 3 });

      // A bounce on every attempt: given up after the last retry, and staff are told.
      const bounced = await customer();
      smtp.refuse = { code: 550, message: 'Mailbox unavailable' };
      await openInvoice(svc, staff, bounced.customerId, [7_000]);
      for (const wait of [0, 1, 5, 30, 120]) {
        clock.advance(wait * 60_000);
        await pass();
      }
      const [gaveUp] = await customerMessages(bounced);
      expect(gaveUp).to.include({ status: 'failed', attempts: 5, next_attempt_at: null });
      expect(to(bounced)).to.deep.equal([]);
      const attention = await svc.call(ops['billing.attention.list'], { kind: 'undelivered_email', limit: 50 }, staff);
      const item = attention.body.items.find((i) => i.customer?.id === bounced.customerId);
      expect(item?.summary).to.include(`ap+${bounced.orgId.slice(-12)}@example.com`).and.to.include('5 attempts');
      expect(item?.cause).to.include('Mailbox unavailable');
      clock.advance(24 * 60 * 60_000);
      await pass();
      expect(to(bounced)).to.deep.equal([]);
      const metrics = await (await fetch(`${svc.url}/metrics`)).text();
      expect(metrics).to.match(/deliveries_total\{channel="email",result="failed"\} [1-9]/).and.to.match(/deliveries_total\{channel="email",result="gave_up"\} [1-9]/).and.to.match(/deliveries_total\{channel="email",result="delivered"\} [1-9]/);
      expect(metrics).to.match(/billing_attention_items\{kind="undelivered_email"\} [1-9]/);
    });

    it('a worker restarted mid-way (message decided, delivery failed) delivers it once, and no instance sends it again', async () => {
      const acme = await customer();
      smtp.refuse = { code: 421, message: 'Service not available' };
      await openInvoice(svc, staff, acme.customerId, [9_900]);
      expect((await pass()).failed).to.have.length(1);
      smtp.refuse = null;
      // A second process on the same database: fresh workers, mailer and memory.
      const restarted = await createApp(loadConfig({ DATA_DIR: '/tmp/core-server-test-unused', LOG_LEVEL: 'silent', ...env() }), { db: svc.db, clock, logger: pino({ level: 'silent' }) });
      try {
        clock.advance(60_000);
        expect((await runMessagesPass(restarted)).delivered).to.have.length(1);
        for (const app of [restarted, svc.app, restarted]) {
          clock.advance(60 * 60_000);
          expect((await runMessagesPass(app)).delivered).to.deep.equal([]);
        }
      } finally {
        await restarted.close();
      }
      await settle(svc);
      expect(to(acme)).to.have.length(1);
      expect((await customerMessages(acme)).map((m) => m.status)).to.deep.equal(['delivered']);
    });

    it('two workers (two processes) delivering the same message at once send it once', async () => {
      const acme = await customer();
      smtp.refuse = { code: 421, message: 'Service not available' };
      await openInvoice(svc, staff, acme.customerId, [4_400]);
      expect((await pass()).failed).to.have.length(1);
      smtp.refuse = null;
      // A slow relay: both passes find the message due and overlap while it is being sent.
      smtp.delayMs = 500;
      const other = await createApp(loadConfig({ DATA_DIR: '/tmp/core-server-test-unused', LOG_LEVEL: 'silent', ...env() }), { db: svc.db, clock, logger: pino({ level: 'silent' }) });
      try {
        clock.advance(60_000);
        const [a, b] = await Promise.all([runMessagesPass(svc.app), runMessagesPass(other)]);
        expect([...a.delivered, ...b.delivered]).to.have.length(1);
      } finally {
        await other.close();
      }
      await settle(svc);
      expect(to(acme)).to.have.length(1);
      expect((await customerMessages(acme)).map((m) => m.status)).to.deep.equal(['delivered']);
    });

    it('reminders follow the due date as the clock moves: 3 days before, on the day, then 3, 7 and 14 days after, each once', async () => {
      const start = clock.now().toISOString();
      try {
        const acme = await customer();
        const inv = await openInvoice(svc, staff, acme.customerId, [25_000]);
        await pass();
        const dueOn = formatDate(inv.due_date);
        expect(to(acme).map((m) => m.subject)).to.deep.equal([`Invoice ${inv.number} from Northwind Billing Ltd: £250.00 due ${dueOn}`]);
        const due = `${inv.due_date}T10:00:00.000Z`;
        const seen = () => to(acme).map((m) => m.subject).slice(1);
        clock.set(new Date(Date.parse(due) - 4 * 86_400_000));
        await pass();
        expect(seen()).to.deep.equal([]);
        clock.set(new Date(Date.parse(due) - 3 * 86_400_000));
        await pass();
        await pass();
        expect(seen()).to.deep.equal([`Reminder: invoice ${inv.number} is due on ${dueOn}`]);
        clock.set(due);
        await pass();
        expect(seen().at(-1)).to.equal(`Invoice ${inv.number} is due today`);
        for (const days of [3, 7, 14]) {
          clock.set(new Date(Date.parse(due) + days * 86_400_000));
          await pass();
        }
        clock.set(new Date(Date.parse(due) + 20 * 86_400_000));
        await pass();
        expect(seen()).to.have.length(5);
        expect(seen().slice(2)).to.deep.equal(Array(3).fill(`Overdue: invoice ${inv.number} was due on ${dueOn}`));
        const reminder = to(acme).at(-1);
        expect(reminder?.text).to.include('Amount due: £250.00').and.to.include(`/billing/pay/${acme.customerId}`);
        expect(reminder?.attachments[0]?.filename).to.equal(`invoice-${inv.number}.pdf`);
        const occasions = (await customerMessages(acme)).filter((m) => m.kind === 'invoice_reminder').map((m) => m.occasion);
        expect(occasions).to.deep.equal(['due-3', 'due+0', 'due+3', 'due+7', 'due+14']);
      } finally {
        clock.set(start);
      }
    });
  });

  describe(`customer emails without SMTP_URL: the outbox (${backend})`, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService(backend, { clock: new TestClock('2026-03-10T09:00:00.000Z') });
    });
    after(async () => svc?.close());

    it('keeps the message in the outbox, delivered nowhere else, listed with its recipient', async () => {
      const staff = await billingStaff(svc);
      const acme = await billedOrg(svc);
      const inv = await openInvoice(svc, staff, acme.customerId, [1_000]);
      expect((await runMessagesPass(svc.app)).delivered).to.have.length(1);
      await settle(svc);
      const outbox = await svc.call(ops['billing.messages.list'], { transport: 'outbox', limit: 50 }, staff);
      expect(outbox.body.items.map((m) => [m.invoice_id, m.kind, m.status, m.to])).to.deep.equal([[inv.id, 'invoice_finalized', 'delivered', 'ap@example.com']]);
      expect((await svc.call(ops['billing.messages.list'], { limit: 50 }, acme.token)).status).to.equal(403);
    });
  });
}
