// The object storage contract every adapter passes: streamed put/get, head, delete, presigned PUT and GET with plain fetch.
import { expect } from 'chai';
import { Readable } from 'node:stream';
import type { TestClock } from '../../src/clock.ts';
import type { ObjectStore } from '../../src/storage/port.ts';

/** An adapter under test, with the clock its URLs are signed on. */
export interface ContractSubject {
  store: ObjectStore;
  clock: TestClock;
  close(): Promise<void>;
}

async function text(body: Readable | null): Promise<string | null> {
  if (!body) return null;
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Registers the contract suite for one adapter. `verifiesSignatures`: the server checks each URL's signature (the file
 * store, AWS S3, MinIO); an emulator that does not (s3rver accepts any SigV4 signature) runs the rest and says so.
 */
export function objectStoreContract(name: string, open: () => Promise<ContractSubject>, opts: { verifiesSignatures: boolean } = { verifiesSignatures: true }): void {
  if (!opts.verifiesSignatures) console.log(`object storage contract (${name}): the signature checks (other object, tampered URL, size cap) did not run: this server does not verify request signatures.`);
  describe(`object storage contract (${name})`, () => {
    let s: ContractSubject;
    let n = 0;
    const key = () => `contract/${Date.now().toString(36)}-${++n}/file.bin`;
    before(async () => {
      s = await open();
    });
    after(async () => s?.close());

    it('puts a stream, heads its size, gets it whole and its first bytes, deletes it (twice is fine)', async () => {
      const k = key();
      await s.store.put(k, Readable.from([Buffer.from('hello '), Buffer.from('world')]), { contentType: 'text/plain' });
      expect(await s.store.head(k)).to.deep.equal({ size: 11 });
      expect(await text(await s.store.get(k))).to.equal('hello world');
      expect(await text(await s.store.get(k, { firstBytes: 5 }))).to.equal('hello');
      await s.store.delete(k);
      await s.store.delete(k);
      expect(await s.store.head(k)).to.equal(null);
      expect(await s.store.get(k)).to.equal(null);
    });

    it('deletes every object under a prefix, and only those; an empty prefix is fine', async () => {
      const base = key();
      for (const k of [`${base}/a/1.pdf`, `${base}/a/2.pdf`, `${base}/b/1.pdf`]) await s.store.put(k, Buffer.from('x'));
      await s.store.deleteUnder(`${base}/a`);
      expect(await s.store.head(`${base}/a/1.pdf`)).to.equal(null);
      expect(await s.store.head(`${base}/a/2.pdf`)).to.equal(null);
      expect(await s.store.head(`${base}/b/1.pdf`)).to.deep.equal({ size: 1 });
      await s.store.deleteUnder(`${base}/nothing`);
    });

    it('moves an object out of reach of the URLs signed for its old key; moving it again is a no-op', async () => {
      const from = key();
      const to = `retained/${from}`;
      await s.store.put(from, Buffer.from('keep me'));
      const down = await s.store.presignDownload(from, { filename: 'f.txt', contentType: 'text/plain', expiresInSeconds: 60 });
      expect((await fetch(down.url)).status).to.equal(200);
      await s.store.move(from, to);
      expect(await s.store.head(from)).to.equal(null);
      expect((await fetch(down.url)).status).to.equal(404);
      expect(await text(await s.store.get(to))).to.equal('keep me');
      await s.store.move(from, to);
      expect(await text(await s.store.get(to))).to.equal('keep me');
      await s.store.delete(to);
    });

    it('freezes an object: the copy keeps the bytes it had, whatever is written to the source later; the first freeze wins', async () => {
      const from = key();
      const to = `committed/${from}`;
      expect(await s.store.freeze(from, to)).to.equal(null);
      expect(await s.store.head(to)).to.equal(null);
      await s.store.put(from, Buffer.from('%PDF checked'));
      expect(await s.store.freeze(from, to)).to.deep.equal({ size: 12 });
      const down = await s.store.presignDownload(to, { filename: 'f.pdf', contentType: 'application/pdf', expiresInSeconds: 60 });
      // A later write to the source (a replayed or slow upload) reaches the source only.
      await s.store.put(from, Buffer.from('<html>later</html>'));
      expect(await s.store.freeze(from, to)).to.deep.equal({ size: 12 });
      expect(await text(await s.store.get(to))).to.equal('%PDF checked');
      expect(await (await fetch(down.url)).text()).to.equal('%PDF checked');
      await s.store.delete(from);
      expect(await text(await s.store.get(to))).to.equal('%PDF checked');
      await s.store.move(to, `removed/${from}`);
      expect((await fetch(down.url)).status).to.equal(404);
      expect(await text(await s.store.get(`removed/${from}`))).to.equal('%PDF checked');
      await s.store.delete(`removed/${from}`);
    });

    it('uploads through a presigned PUT with plain fetch and downloads through a presigned GET byte for byte', async () => {
      const k = key();
      const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0x10]);
      const up = await s.store.presignUpload(k, { contentType: 'application/pdf', size: bytes.length, expiresInSeconds: 600 });
      expect(up.expires_at.getTime()).to.equal(Math.floor(s.clock.now().getTime() / 1000) * 1000 + 600_000);
      const put = await fetch(up.url, { method: 'PUT', headers: up.headers, body: bytes });
      expect(put.status, await put.clone().text()).to.equal(200);
      expect(await s.store.head(k)).to.deep.equal({ size: bytes.length });
      const down = await s.store.presignDownload(k, { filename: 'Contrat signé "v2".pdf', contentType: 'application/pdf', expiresInSeconds: 60 });
      const got = await fetch(down.url);
      expect(got.status).to.equal(200);
      expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).to.equal(true);
      const disposition = got.headers.get('content-disposition') ?? '';
      expect(disposition).to.match(/^attachment;/);
      expect(disposition).to.include(`filename*=UTF-8''Contrat%20sign%C3%A9%20%22v2%22.pdf`);
      expect(disposition).to.not.match(/filename="[^"]*"[^;]*"/);
    });

    if (opts.verifiesSignatures) it('a URL signed for one object never reaches another, and a tampered URL is refused with 403', async () => {
      const a = key();
      const b = key();
      await s.store.put(b, Buffer.from('secret b'));
      await s.store.put(a, Buffer.from('file a'));
      const down = await s.store.presignDownload(a, { filename: 'a.txt', contentType: 'text/plain', expiresInSeconds: 60 });
      const other = down.url.replace(a, b);
      expect(other).to.not.equal(down.url);
      expect((await fetch(other)).status).to.equal(403);
      const u = new URL(down.url);
      const tampered = [...u.searchParams.entries()].map(([name, value]): [string, string] => [name, value.length > 8 ? `${value.slice(0, -3)}${value.slice(-3) === 'AAA' ? 'BBB' : 'AAA'}` : value]);
      const bad = new URL(down.url);
      bad.search = new URLSearchParams(tampered).toString();
      expect((await fetch(bad)).status).to.equal(403);
      const up = await s.store.presignUpload(a.replace('file.bin', 'up.bin'), { contentType: 'text/plain', size: 4, expiresInSeconds: 60 });
      const stolen = await fetch(up.url.replace('up.bin', 'file.bin'), { method: 'PUT', headers: up.headers, body: 'evil' });
      expect(stolen.status).to.equal(403);
      expect(await text(await s.store.get(a))).to.equal('file a');
    });

    it('an expired URL is refused with 403', async () => {
      const k = key();
      await s.store.put(k, Buffer.from('x'));
      // Signed 61 s ago for 60 s (a server checks expiry on its own clock, not on ours).
      s.clock.advance(-61_000);
      const down = await s.store.presignDownload(k, { filename: 'x.txt', contentType: 'text/plain', expiresInSeconds: 60 });
      const up = await s.store.presignUpload(`${k}.new`, { contentType: 'text/plain', size: 1, expiresInSeconds: 60 });
      s.clock.advance(61_000);
      expect((await fetch(down.url)).status).to.equal(403);
      expect((await fetch(up.url, { method: 'PUT', headers: up.headers, body: 'y' })).status).to.equal(403);
      expect(await s.store.head(`${k}.new`)).to.equal(null);
    });

    if (opts.verifiesSignatures) it('an upload larger than signed is refused and stores nothing', async () => {
      const k = key();
      const up = await s.store.presignUpload(k, { contentType: 'text/plain', size: 4, expiresInSeconds: 60 });
      const res = await fetch(up.url, { method: 'PUT', headers: up.headers, body: 'too long' });
      expect(res.status).to.be.within(400, 499);
      expect(await s.store.head(k)).to.equal(null);
    });

    it('a deleted object is no longer served by its download URL', async () => {
      const k = key();
      await s.store.put(k, Buffer.from('gone soon'));
      const down = await s.store.presignDownload(k, { filename: 'g.txt', contentType: 'text/plain', expiresInSeconds: 60 });
      expect((await fetch(down.url)).status).to.equal(200);
      await s.store.delete(k);
      expect((await fetch(down.url)).status).to.be.oneOf([403, 404]);
    });
  });
}
