// The file adapter: the contract suite, plus what only the service-served URLs promise (write once, content type bound).
import { expect } from 'chai';
import express from 'express';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TestClock } from '../../src/clock.ts';
import { openFileObjectStore } from '../../src/storage/index.ts';
import { mountFileObjectRoutes } from '../../src/http/file-routes.ts';
import type { FileObjectStore } from '../../src/storage/file.ts';
import { type ContractSubject, objectStoreContract } from './contract.ts';
import { slowPut, until, uploadUnderWay } from '../support/uploads.ts';

async function openFile(): Promise<ContractSubject & { store: FileObjectStore }> {
  const clock = new TestClock(new Date());
  let base = '';
  const store = await openFileObjectStore({ kind: 'file', dir: mkdtempSync(path.join(os.tmpdir(), 'objects-')) }, clock, () => base);
  const app = express();
  mountFileObjectRoutes(app, store);
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    store,
    clock,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

objectStoreContract('file', openFile);

describe('file object store URLs', () => {
  let s: Awaited<ReturnType<typeof openFile>>;
  before(async () => {
    s = await openFile();
  });
  after(async () => s?.close());

  it('an upload URL writes once: replaying it cannot replace the object', async () => {
    const up = await s.store.presignUpload('once/a.txt', { contentType: 'text/plain', size: 10, expiresInSeconds: 60 });
    expect((await fetch(up.url, { method: 'PUT', headers: up.headers, body: 'first' })).status).to.equal(200);
    expect((await fetch(up.url, { method: 'PUT', headers: up.headers, body: 'second' })).status).to.equal(409);
    expect(await s.store.head('once/a.txt')).to.deep.equal({ size: 5 });
  });

  it('an upload URL works once: a PUT overlapping it, or after its object was frozen, moved or deleted, is refused with 409', async () => {
    const up = await s.store.presignUpload('once/b.txt', { contentType: 'text/plain', size: 100, expiresInSeconds: 60 });
    // A slow first PUT: its headers and first bytes are in, the rest is held back.
    const slow = slowPut(up.url, up.headers, Buffer.from('first'), Buffer.from('-----'));
    await until(() => uploadUnderWay(s.store.dir, 'once/b.txt'));
    const second = await fetch(up.url, { method: 'PUT', headers: up.headers, body: 'second' });
    expect(second.status).to.equal(409);
    expect(((await second.json()) as { code: string }).code).to.equal('upload_url_used');
    expect(await slow.finish()).to.equal(200);
    expect(await s.store.freeze('once/b.txt', 'committed/once/b.txt')).to.deep.equal({ size: 10 });
    await s.store.move('once/b.txt', 'removed/once/b.txt');
    expect((await fetch(up.url, { method: 'PUT', headers: up.headers, body: 'after move' })).status).to.equal(409);
    await s.store.delete('removed/once/b.txt');
    expect((await fetch(up.url, { method: 'PUT', headers: up.headers, body: 'after delete' })).status).to.equal(409);
    expect(await s.store.head('once/b.txt')).to.equal(null);
  });

  it('an upload cut off for its size stores nothing and leaves the URL usable', async () => {
    const up = await s.store.presignUpload('once/c.txt', { contentType: 'text/plain', size: 4, expiresInSeconds: 60 });
    // Chunked, so no Content-Length refuses it up front: it is cut off while being written.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = http.request(up.url, { method: 'PUT', headers: up.headers }, (res) => resolve(res.statusCode ?? 0)).on('error', reject);
      req.write('too ');
      req.end('long');
    });
    expect(chunked).to.equal(413);
    expect(await s.store.head('once/c.txt')).to.equal(null);
    expect((await fetch(up.url, { method: 'PUT', headers: up.headers, body: 'fine' })).status).to.equal(200);
    expect((await fetch(up.url, { method: 'PUT', headers: up.headers, body: 'more' })).status).to.equal(409);
  });

  it('an upload with another Content-Type than signed is refused with 403', async () => {
    const up = await s.store.presignUpload('ctype/a.pdf', { contentType: 'application/pdf', size: 10, expiresInSeconds: 60 });
    expect((await fetch(up.url, { method: 'PUT', headers: { 'Content-Type': 'text/html' }, body: '<b>x</b>' })).status).to.equal(403);
    expect(await s.store.head('ctype/a.pdf')).to.equal(null);
  });

  it('keys that could leave the directory are refused', async () => {
    for (const bad of ['../x', 'a/../../x', '/abs', 'A/upper', 'a//b', '']) {
      let threw = false;
      try {
        await s.store.put(bad, Buffer.from('x'));
      } catch {
        threw = true;
      }
      expect(threw, bad).to.equal(true);
    }
  });
});
