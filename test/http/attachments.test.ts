// billing.customers.attachments.* and billing.invoices.attachments.*: prepare -> PUT -> insert, visibility, checks, URLs.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { billingStaff, openInvoice } from '../support/billing.ts';
import { systemContext } from '../support/system.ts';
import { createSession, createUser } from '../../src/commands/identity/identity.ts';
import { identityProjection } from '../../src/projections/identity/identity.ts';
import { type TestS3, startS3rver } from '../support/s3.ts';
import { attachmentExpiryWorker } from '../../src/workers/billing/attachment-expiry.ts';
import { FileObjectStore } from '../../src/storage/file.ts';
import { slowPut, until, uploadUnderWay } from '../support/uploads.ts';

type SignUp = Awaited<ReturnType<TestService['signUp']>>;
type Kind = 'application/pdf' | 'image/png' | 'image/jpeg' | 'text/plain' | 'text/csv';
interface File {
  filename: string;
  content_type: Kind;
  bytes: Buffer;
}

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(5000, 0x20), Buffer.from('\n%%EOF\n')]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);
const pdf = (filename = 'contract.pdf'): File => ({ filename, content_type: 'application/pdf', bytes: PDF });

for (const [backend, storage] of backends().flatMap((b) => [[b, 'file'], [b, 's3']] as const)) {
  describe(`billing attachments over HTTP (${backend}, ${storage} store)`, () => {
    let s3: TestS3 | undefined;
    let svc: TestService;
    let owner: SignUp;
    let staff: string;
    let member: string;
    let customerId: string;
    let invoiceId: string;
    const customer = () => ({ customer_id: customerId });

    /** Prepares `files` on the customer and PUTs each with plain fetch; returns the pending ids. */
    async function upload(token: string, files: File[], bodies: Buffer[] = files.map((f) => f.bytes)): Promise<string[]> {
      const prep = await svc.call(ops['billing.customers.attachments.prepare'], { ...customer(), files: files.map((f) => ({ filename: f.filename, content_type: f.content_type, size: f.bytes.length })) }, token);
      expect(prep.status, JSON.stringify(prep.body)).to.equal(200);
      for (const [i, item] of prep.body.items.entries()) {
        const put = await fetch(item.upload_url, { method: item.upload_method, headers: item.upload_headers, body: bodies[i] });
        expect(put.status, await put.clone().text()).to.equal(200);
      }
      return prep.body.items.map((x) => x.id);
    }

    async function attach(token: string, file: File, isInternal = false) {
      const [id = ''] = await upload(token, [file]);
      const res = await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id, is_internal: isInternal }] }, token);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return id;
    }

    const listed = async (token: string) => (await svc.call(ops['billing.customers.attachments.list'], { ...customer(), limit: 200 }, token)).body.items.map((x) => x.id);
    const streamTypes = async (id: string) => svc.app.knex('es_events').where({ stream_id: `attachment-${id}` }).orderBy('revision').pluck('type');

    before(async () => {
      s3 = storage === 's3' ? await startS3rver() : undefined;
      svc = await startService(backend, { env: s3?.env ?? {} });
      owner = await svc.signUp();
      staff = await billingStaff(svc);
      customerId = (await svc.call(ops['billing.customers.insert'], { name: 'Attached Ltd', email: 'a@example.com', currency: 'GBP' }, owner.token)).body.id;
      invoiceId = (await openInvoice(svc, staff, customerId)).id;
      const m = await createUser(systemContext(svc.app), { email: `member-${Date.now()}@attached.example`, password: 'member password', organizationId: owner.orgId, role: 'member' });
      await svc.app.runner.waitFor(m.position, [identityProjection], 10_000);
      member = (await createSession(svc.app.knex, { userId: m.id, organizationId: owner.orgId, now: svc.clock.now(), ttlHours: 24 })).token;
    });
    after(async () => {
      await svc?.close();
      await s3?.close();
    });

    it('a clerk attaches a signed PDF to a customer and a remittance image to an invoice, one internal: a plain member sees only the other', async () => {
      const prep = await svc.call(ops['billing.customers.attachments.prepare'], { ...customer(), files: [{ filename: 'Signed contract.pdf', content_type: 'application/pdf', size: PDF.length }] }, staff);
      expect(prep.status).to.equal(200);
      expect(prep.body.expires_in_seconds).to.equal(900);
      expect(Date.parse(prep.body.expires_at) - svc.clock.now().getTime()).to.be.within(899_000, 900_000);
      const [item] = prep.body.items;
      if (!item) throw new Error('no item');
      expect(item).to.include({ filename: 'Signed contract.pdf', content_type: 'application/pdf', size: PDF.length, upload_method: 'PUT' });
      expect((await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: PDF })).status).to.equal(200);
      const ins = await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id: item.id, is_internal: true }] }, staff);
      expect(ins.status).to.equal(200);
      expect(ins.body.items).to.have.length(1);
      expect(ins.body.items[0]).to.deep.include({ id: item.id, filename: 'Signed contract.pdf', content_type: 'application/pdf', size: PDF.length, is_internal: true, created_at: svc.clock.now().toISOString() });

      const iprep = await svc.call(ops['billing.invoices.attachments.prepare'], { invoice_id: invoiceId, files: [{ filename: 'remittance.png', content_type: 'image/png', size: PNG.length }] }, staff);
      const [img] = iprep.body.items;
      if (!img) throw new Error('no item');
      expect((await fetch(img.upload_url, { method: 'PUT', headers: img.upload_headers, body: PNG })).status).to.equal(200);
      expect((await svc.call(ops['billing.invoices.attachments.insert'], { invoice_id: invoiceId, attachments: [{ id: img.id }] }, staff)).status).to.equal(200);

      expect(await listed(owner.token)).to.include(item.id);
      expect(await listed(member)).to.not.include(item.id);
      const invList = await svc.call(ops['billing.invoices.attachments.list'], { invoice_id: invoiceId }, member);
      expect(invList.body.items.map((x) => x.id)).to.deep.equal([img.id]);
      const hidden = await svc.call(ops['billing.customers.attachments.get'], { ...customer(), id: item.id }, member);
      expect(hidden.status).to.equal(404);
      expect(hidden.body.code).to.equal('attachment_not_found');

      const url = await svc.call(ops['billing.invoices.attachments.get'], { invoice_id: invoiceId, id: img.id }, member);
      expect(url.body.expires_in_seconds).to.equal(300);
      const got = await fetch(url.body.url);
      expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).to.equal(true);
      expect(got.headers.get('content-disposition')).to.equal(`attachment; filename="remittance.png"; filename*=UTF-8''remittance.png`);
      expect(got.headers.get('content-type')).to.equal('image/png');
    });

    it('downloads byte for byte under the original name, safely encoded', async () => {
      const id = await attach(owner.token, pdf('Reçu "mars"; 2026.pdf'));
      const url = await svc.call(ops['billing.customers.attachments.get'], { ...customer(), id }, owner.token);
      const got = await fetch(url.body.url);
      expect(got.status).to.equal(200);
      expect(Buffer.from(await got.arrayBuffer()).equals(PDF)).to.equal(true);
      expect(got.headers.get('content-disposition')).to.equal(`attachment; filename="Recu _mars__ 2026.pdf"; filename*=UTF-8''Re%C3%A7u%20%22mars%22%3B%202026.pdf`);
    });

    it('content that is not the declared type, or of another size, is refused with 400 and nothing is committed', async () => {
      const fake: File = { filename: 'invoice.pdf', content_type: 'application/pdf', bytes: Buffer.from('MZ\x90\x00 this is an executable, not a PDF') };
      const [badId = ''] = await upload(owner.token, [fake]);
      const [goodId = ''] = await upload(owner.token, [pdf('good.pdf')]);
      const res = await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id: goodId }, { id: badId }] }, owner.token);
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('attachment_content_mismatch');
      expect(await listed(owner.token)).to.not.include.members([goodId, badId]);
      expect(await streamTypes(goodId)).to.deep.equal(['AttachmentPrepared']);

      const text: File = { filename: 'notes.txt', content_type: 'text/plain', bytes: Buffer.from('hello') };
      const [shortId = ''] = await upload(owner.token, [text], [Buffer.from('hell')]);
      const short = await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id: shortId }] }, owner.token);
      expect(short.status).to.equal(400);
      expect(short.body.code).to.equal('attachment_size_mismatch');
      expect(await streamTypes(shortId)).to.deep.equal(['AttachmentPrepared']);

      const binary: File = { filename: 'data.csv', content_type: 'text/csv', bytes: Buffer.from([0x61, 0x00, 0x62]) };
      const [binId = ''] = await upload(owner.token, [binary]);
      expect((await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id: binId }] }, owner.token)).body.code).to.equal('attachment_content_mismatch');

      const prep = await svc.call(ops['billing.customers.attachments.prepare'], { ...customer(), files: [{ filename: 'never.pdf', content_type: 'application/pdf', size: 10 }] }, owner.token);
      const never = await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id: prep.body.items[0]?.id ?? '' }] }, owner.token);
      expect(never.status).to.equal(409);
      expect(never.body.code).to.equal('attachment_not_uploaded');
    });

    // s3rver does not verify SigV4 signatures: there the signature half runs in the S3 contract suite against TEST_S3_ENDPOINT.
    if (storage === 'file') it('a download URL of one attachment never reaches another object; a tampered one is 403', async () => {
      const a = await attach(owner.token, pdf('a.pdf'));
      const b = await attach(owner.token, pdf('b.pdf'), true);
      const url = (await svc.call(ops['billing.customers.attachments.get'], { ...customer(), id: a }, owner.token)).body.url;
      expect(url).to.include(a);
      expect((await fetch(url.replace(a, b))).status).to.equal(403);
      expect((await fetch(url.replace(/.{4}$/, 'AAAA'))).status).to.equal(403);
      expect((await fetch(url)).status).to.equal(200);
    });

    // Issue 25: attachments are write-once. The file store refuses a used upload URL itself; s3rver (like S3 without
    // conditional writes) stores a replayed PUT, which then reaches the upload key only: downloads serve the frozen copy.
    const HTML = Buffer.concat([Buffer.from('<html><script>alert(1)</script>'), Buffer.alloc(PDF.length - 31, 0x20)]);
    const refusedReplay = async (put: Response) => {
      if (storage === 'file') {
        expect(put.status).to.equal(409);
        expect(((await put.json()) as { code: string }).code).to.equal('upload_url_used');
      } else await put.body?.cancel();
    };
    const servesPdf = async (url: string) => {
      const got = await fetch(url);
      expect(got.status).to.equal(200);
      expect(got.headers.get('content-type')).to.equal('application/pdf');
      expect(Buffer.from(await got.arrayBuffer()).equals(PDF)).to.equal(true);
    };

    it('a refused upload spends its URL: sending the right file to it is refused or changes nothing; a new prepare works', async () => {
      const prep = await svc.call(ops['billing.customers.attachments.prepare'], { ...customer(), files: [{ filename: 'retry.pdf', content_type: 'application/pdf', size: PDF.length }] }, owner.token);
      const [item] = prep.body.items;
      if (!item) throw new Error('no item');
      const wrong = Buffer.alloc(PDF.length, 0x41);
      expect((await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: wrong })).status).to.equal(200);
      const refused = await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id: item.id }] }, owner.token);
      expect(refused.body.code).to.equal('attachment_content_mismatch');
      await refusedReplay(await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: PDF }));
      const again = await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id: item.id }] }, owner.token);
      expect([again.status, again.body.code]).to.deep.equal([400, 'attachment_content_mismatch']);
      const id = await attach(owner.token, pdf('retry.pdf'));
      await servesPdf((await svc.call(ops['billing.customers.attachments.get'], { ...customer(), id }, owner.token)).body.url);
    });

    it('a PUT to the upload URL after commit never changes what downloads serve (bytes and content type)', async () => {
      const prep = await svc.call(ops['billing.customers.attachments.prepare'], { ...customer(), files: [{ filename: 'frozen.pdf', content_type: 'application/pdf', size: PDF.length }] }, owner.token);
      const [item] = prep.body.items;
      if (!item) throw new Error('no item');
      const id = item.id;
      expect((await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: PDF })).status).to.equal(200);
      expect((await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id }] }, owner.token)).status).to.equal(200);
      const before = (await svc.call(ops['billing.customers.attachments.get'], { ...customer(), id }, owner.token)).body.url;
      await refusedReplay(await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: HTML }));
      await servesPdf(before);
      await servesPdf((await svc.call(ops['billing.customers.attachments.get'], { ...customer(), id }, owner.token)).body.url);
    });

    if (storage === 'file') it('a slow PUT that started before the upload was complete cannot land after commit', async () => {
      const prep = await svc.call(ops['billing.customers.attachments.prepare'], { ...customer(), files: [{ filename: 'slow.pdf', content_type: 'application/pdf', size: PDF.length }] }, owner.token);
      const [item] = prep.body.items;
      if (!item) throw new Error('no item');
      const key = `attachments/${owner.orgId}/${item.id}`;
      const dir = svc.app.objects instanceof FileObjectStore ? svc.app.objects.dir : '';
      const slow = slowPut(item.upload_url, item.upload_headers, HTML.subarray(0, 100), HTML.subarray(100));
      await until(() => uploadUnderWay(dir, key));
      // The URL is in use: the right file cannot be sent to it meanwhile, and nothing is there to commit.
      await refusedReplay(await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: PDF }));
      const early = await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id: item.id }] }, owner.token);
      expect([early.status, early.body.code]).to.deep.equal([409, 'attachment_not_uploaded']);
      expect(await slow.finish()).to.equal(200);
      const late = await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id: item.id }] }, owner.token);
      expect([late.status, late.body.code]).to.deep.equal([400, 'attachment_content_mismatch']);
      expect(await listed(owner.token)).to.not.include(item.id);
    });

    it('after removal, a PUT to the upload URL is refused or reaches nothing, and a download URL issued before serves nothing', async () => {
      const iprep = await svc.call(ops['billing.invoices.attachments.prepare'], { invoice_id: invoiceId, files: [{ filename: 'remove-me.pdf', content_type: 'application/pdf', size: PDF.length }] }, owner.token);
      const [item] = iprep.body.items;
      if (!item) throw new Error('no item');
      expect((await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: PDF })).status).to.equal(200);
      expect((await svc.call(ops['billing.invoices.attachments.insert'], { invoice_id: invoiceId, attachments: [{ id: item.id }] }, owner.token)).status).to.equal(200);
      const url = (await svc.call(ops['billing.invoices.attachments.get'], { invoice_id: invoiceId, id: item.id }, owner.token)).body.url;
      await servesPdf(url);
      expect((await svc.call(ops['billing.invoices.attachments.remove'], { invoice_id: invoiceId, id: item.id }, owner.token)).status).to.equal(200);
      await refusedReplay(await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: HTML }));
      expect((await fetch(url)).status).to.equal(404);
      expect((await svc.call(ops['billing.invoices.attachments.get'], { invoice_id: invoiceId, id: item.id }, owner.token)).body.code).to.equal('attachment_not_found');
    });

    it('a download URL expires after its stated lifetime (403)', async () => {
      const a = await attach(owner.token, pdf('soon.pdf'));
      // Issued 301 s ago (stores check expiry on their own clock): its 300 s are over.
      svc.clock.advance(-301_000);
      const url = (await svc.call(ops['billing.customers.attachments.get'], { ...customer(), id: a }, owner.token)).body.url;
      svc.clock.advance(301_000);
      expect((await fetch(url)).status).to.equal(403);
    });

    it('an upload not committed before its expiry cannot be committed', async () => {
      const [id = ''] = await upload(owner.token, [pdf('late.pdf')]);
      svc.clock.advance(15 * 60_000 + 1000);
      const res = await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id }] }, owner.token);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('attachment_expired');
    });

    it('the expiry worker deletes uploads never committed and records it; committed files stay; a second pass does nothing', async () => {
      const kept = await attach(owner.token, pdf('kept.pdf'));
      const [stale = ''] = await upload(owner.token, [pdf('stale.pdf')]);
      const key = (await svc.app.knex('billing_attachments').where({ id: stale }).first('doc')).doc.object_key as string;
      expect(await svc.app.objects.head(key)).to.not.equal(null);
      expect((await attachmentExpiryWorker.runOnce(svc.app)).expired).to.not.include(stale);
      svc.clock.advance(15 * 60_000 + 1000);
      expect((await attachmentExpiryWorker.runOnce(svc.app)).expired).to.include(stale);
      expect(await svc.app.objects.head(key)).to.equal(null);
      const events = await svc.app.knex('es_events').where({ stream_id: `attachment-${stale}` }).orderBy('revision').select('type', 'metadata');
      expect(events.map((e) => e.type)).to.deep.equal(['AttachmentPrepared', 'AttachmentExpired']);
      expect(events[1]?.metadata.actor).to.deep.equal({ type: 'system', id: 'attachment-expiry-worker' });
      expect((await attachmentExpiryWorker.runOnce(svc.app)).expired).to.not.include(stale);
      expect(await listed(owner.token)).to.include(kept);
    });

    it('another organization gets 404 on get, list, insert and remove, and no URL', async () => {
      const id = await attach(owner.token, pdf('private.pdf'));
      const other = await svc.signUp();
      const otherCustomer = (await svc.call(ops['billing.customers.insert'], { name: 'Other', email: 'o@example.com', currency: 'GBP' }, other.token)).body.id;
      const get = await svc.call(ops['billing.customers.attachments.get'], { ...customer(), id }, other.token);
      expect(get.status).to.equal(404);
      expect(get.body).to.not.have.property('url');
      expect((await svc.call(ops['billing.customers.attachments.get'], { customer_id: otherCustomer, id }, other.token)).body.code).to.equal('attachment_not_found');
      expect((await svc.call(ops['billing.customers.attachments.list'], customer(), other.token)).status).to.equal(404);
      expect((await svc.call(ops['billing.customers.attachments.remove'], { customer_id: otherCustomer, id }, other.token)).status).to.equal(404);
      expect((await svc.call(ops['billing.customers.attachments.insert'], { customer_id: otherCustomer, attachments: [{ id }] }, other.token)).body.code).to.equal('attachment_not_found');
    });

    it('removing an attachment stops its download URL at once; the file is kept out of reach for the retention period, then purged (an event)', async () => {
      const id = await attach(owner.token, pdf('gone.pdf'));
      const key = (await svc.app.knex('billing_attachments').where({ id }).first('doc')).doc.object_key as string;
      const url = (await svc.call(ops['billing.customers.attachments.get'], { ...customer(), id }, owner.token)).body.url;
      expect((await fetch(url)).status).to.equal(200);
      const rm = await svc.call(ops['billing.customers.attachments.remove'], { ...customer(), id }, owner.token);
      expect(rm.status).to.equal(200);
      expect(rm.body).to.deep.equal({});
      expect((await fetch(url)).status).to.equal(404);
      expect(await listed(owner.token)).to.not.include(id);
      expect((await svc.call(ops['billing.customers.attachments.get'], { ...customer(), id }, owner.token)).body.code).to.equal('attachment_not_found');
      expect((await svc.call(ops['billing.customers.attachments.remove'], { ...customer(), id }, owner.token)).body.code).to.equal('attachment_not_found');
      expect((await svc.call(ops['billing.customers.attachments.insert'], { ...customer(), attachments: [{ id }] }, owner.token)).body.code).to.equal('attachment_not_found');
      expect(await streamTypes(id)).to.deep.equal(['AttachmentPrepared', 'AttachmentCommitted', 'AttachmentRemoved']);
      // Kept (ATTACHMENT_RETENTION_DAYS, default 30) where no URL of the attachment reaches it.
      expect(await svc.app.objects.head(key)).to.equal(null);
      expect(await svc.app.objects.head(`removed/${key}`)).to.deep.equal({ size: PDF.length });
      const DAY = 86_400_000;
      try {
        svc.clock.advance(30 * DAY - 1000);
        expect((await attachmentExpiryWorker.runOnce(svc.app)).purged).to.not.include(id);
        expect(await svc.app.objects.head(`removed/${key}`)).to.deep.equal({ size: PDF.length });
        svc.clock.advance(1000);
        expect((await attachmentExpiryWorker.runOnce(svc.app)).purged).to.include(id);
        expect(await svc.app.objects.head(`removed/${key}`)).to.equal(null);
        expect((await attachmentExpiryWorker.runOnce(svc.app)).purged).to.not.include(id);
      } finally {
        svc.clock.advance(-30 * DAY);
      }
      const events = await svc.app.knex('es_events').where({ stream_id: `attachment-${id}` }).orderBy('revision').select('type', 'data', 'metadata');
      expect(events.map((e) => e.type)).to.deep.equal(['AttachmentPrepared', 'AttachmentCommitted', 'AttachmentRemoved', 'AttachmentPurged']);
      expect(events[3]?.data.retention_days).to.equal(30);
      expect(events[3]?.metadata.actor).to.deep.equal({ type: 'system', id: 'attachment-expiry-worker' });
      expect(events[3]?.metadata.reason).to.equal('retention period over');
    });

    it('a plain member may list and download but not upload or remove', async () => {
      expect((await svc.call(ops['billing.customers.attachments.prepare'], { ...customer(), files: [{ filename: 'x.pdf', content_type: 'application/pdf', size: 10 }] }, member)).status).to.equal(403);
      const id = await attach(owner.token, pdf('shared.pdf'));
      expect(await listed(member)).to.include(id);
      expect((await svc.call(ops['billing.customers.attachments.remove'], { ...customer(), id }, member)).status).to.equal(403);
    });

    it('refuses bad input with 400: too many files, too large, type not allowed, bad file names', async () => {
      const file = { filename: 'a.pdf', content_type: 'application/pdf', size: 10 };
      const bad: unknown[] = [
        { ...customer(), files: [] },
        { ...customer(), files: Array.from({ length: 11 }, () => file) },
        { ...customer(), files: [{ ...file, size: 25 * 1024 * 1024 + 1 }] },
        { ...customer(), files: [{ ...file, size: 0 }] },
        { ...customer(), files: [{ ...file, content_type: 'text/html' }] },
        { ...customer(), files: [{ ...file, filename: '../etc/passwd' }] },
        { ...customer(), files: [{ ...file, filename: 'a\u0000b.pdf' }] },
        { ...customer(), files: [{ ...file, filename: 'x'.repeat(201) }] },
        { ...customer(), files: [{ ...file, filename: '..' }] },
      ];
      for (const body of bad) {
        const res = await svc.send('billing.customers.attachments.prepare', body, owner.token);
        expect(res.status, JSON.stringify(body).slice(0, 120)).to.equal(400);
      }
    });
  });
}
