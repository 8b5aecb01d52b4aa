// The file adapter: objects under one directory; the service itself serves their signed upload and download URLs.
import crypto from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../clock.ts';
import { type ObjectHead, type ObjectStore, type PresignedDownload, type PresignedUpload, TooLargeError, assertKey, attachmentDisposition, isValidKey } from './port.ts';
import { type Grant, UrlSigner } from './signer.ts';

/** Where the file store's signed URLs are served: `<base>/objects/<key>?token=…`. */
const OBJECT_ROUTE = '/objects';

/** The directory of used upload URLs (a dot: no object key can name it). */
const CLAIMS = '.claims';

/** Objects as files under `dir`; `baseUrl()` is the service's public URL. */
export class FileObjectStore implements ObjectStore {
  /** Where its signed URLs point: the HTTP side mounts its routes here. */
  readonly route = OBJECT_ROUTE;
  constructor(
    readonly dir: string,
    readonly signer: UrlSigner,
    private readonly clock: Clock,
    private readonly baseUrl: () => string,
  ) {}

  /** The file of a key. */
  pathOf(key: string): string {
    assertKey(key);
    return path.join(this.dir, ...key.split('/'));
  }

  async deleteUnder(prefix: string): Promise<void> {
    await fs.rm(this.pathOf(prefix), { recursive: true, force: true });
  }

  async put(key: string, body: Readable | Buffer): Promise<void> {
    await this.write(key, Buffer.isBuffer(body) ? Readable.from([body]) : body, Infinity);
  }

  /** Writes through a temporary file and renames, so readers never see half an object; refuses more than `maxBytes`. */
  async write(key: string, body: Readable, maxBytes: number): Promise<number> {
    const file = this.pathOf(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${crypto.randomBytes(6).toString('hex')}.part`;
    let count = 0;
    try {
      await pipeline(
        body,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            count += chunk.length;
            if (count > maxBytes) throw new TooLargeError();
            yield chunk;
          }
        },
        createWriteStream(tmp, { mode: 0o600 }),
      );
      await fs.rename(tmp, file);
      return count;
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
  }

  /** The grant of a signed URL's token for `method` on `key`, or null (a malformed key, a bad or expired token). */
  grant(token: string, method: Grant['m'], key: string): Grant | null {
    return isValidKey(key) ? this.signer.verify(token, method, key) : null;
  }

  /** An upload through a signed URL: stored, or refused for being over `maxBytes` (nothing kept). */
  async upload(key: string, body: Readable, maxBytes: number): Promise<'stored' | 'too_large'> {
    try {
      await this.write(key, body, maxBytes);
      return 'stored';
    } catch (err) {
      if (err instanceof TooLargeError) return 'too_large';
      throw err;
    }
  }

  /** The Content-Disposition of a download named `filename`. */
  disposition(filename: string): string {
    return attachmentDisposition(filename);
  }

  async head(key: string) {
    try {
      const st = await fs.stat(this.pathOf(key));
      return st.isFile() ? { size: st.size } : null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async get(key: string, opts: { firstBytes?: number } = {}) {
    const head = await this.head(key);
    if (!head) return null;
    if (opts.firstBytes === 0 || head.size === 0) return Readable.from([]);
    return createReadStream(this.pathOf(key), opts.firstBytes ? { end: opts.firstBytes - 1 } : {});
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.pathOf(to);
    await fs.mkdir(path.dirname(target), { recursive: true });
    try {
      await fs.rename(this.pathOf(from), target);
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }

  async freeze(from: string, to: string): Promise<ObjectHead | null> {
    const source = this.pathOf(from);
    const target = this.pathOf(to);
    await fs.mkdir(path.dirname(target), { recursive: true });
    try {
      // A hard link: the same bytes under a second name, made atomically and never over an existing one. An upload
      // writes a new file and renames it over its key, so nothing written to `from` later reaches `to`.
      await fs.link(source, target);
    } catch (err) {
      if (isMissing(err)) return this.head(to);
      if (!isExisting(err)) await this.copyExclusive(source, target);
    }
    return this.head(to);
  }

  // Where hard links are not possible: a copy through a temporary file, linked into place (atomic, never replacing).
  private async copyExclusive(source: string, target: string): Promise<void> {
    const tmp = `${target}.${crypto.randomBytes(6).toString('hex')}.part`;
    try {
      await fs.copyFile(source, tmp);
      await fs.link(tmp, target);
    } catch (err) {
      if (!isMissing(err) && !isExisting(err)) throw err;
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  /**
   * Takes the one use of the upload URL of `key` that expires at `expiry` (epoch seconds): false when it was used or is in
   * use. Claims are kept per hour of expiry under `.claims` (no key can start with a dot) and swept once expired.
   */
  async claimUpload(key: string, expiry: number): Promise<boolean> {
    const file = this.claimOf(key, expiry);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await this.sweepClaims();
    try {
      await fs.writeFile(file, '', { flag: 'wx', mode: 0o600 });
      return true;
    } catch (err) {
      if (isExisting(err)) return false;
      throw err;
    }
  }

  /** Gives back the claim of an upload that stored nothing (cut off, too large), so the URL can be tried again. */
  async releaseUpload(key: string, expiry: number): Promise<void> {
    await fs.rm(this.claimOf(key, expiry), { force: true });
  }

  private claimOf(key: string, expiry: number): string {
    assertKey(key);
    return path.join(this.dir, CLAIMS, String(Math.floor(expiry / 3600)), crypto.createHash('sha256').update(key).digest('hex'));
  }

  // Hours whose URLs have all expired (with an hour's slack for the clocks of processes sharing the directory) are dropped.
  private async sweepClaims(): Promise<void> {
    const hour = Math.floor(this.clock.now().getTime() / 3_600_000);
    const hours = await fs.readdir(path.join(this.dir, CLAIMS)).catch(() => []);
    for (const h of hours) if (/^\d+$/.test(h) && Number(h) + 2 <= hour) await fs.rm(path.join(this.dir, CLAIMS, h), { recursive: true, force: true });
  }

  async presignUpload(key: string, opts: { contentType: string; size: number; expiresInSeconds: number }): Promise<PresignedUpload> {
    assertKey(key);
    const e = this.expiry(opts.expiresInSeconds);
    const token = this.signer.sign({ m: 'PUT', k: key, e, s: opts.size, t: opts.contentType });
    return { url: this.urlOf(key, token), method: 'PUT', headers: { 'Content-Type': opts.contentType }, expires_at: new Date(e * 1000) };
  }

  async presignDownload(key: string, opts: { filename: string; contentType: string; expiresInSeconds: number }): Promise<PresignedDownload> {
    assertKey(key);
    const e = this.expiry(opts.expiresInSeconds);
    const token = this.signer.sign({ m: 'GET', k: key, e, t: opts.contentType, f: opts.filename });
    return { url: this.urlOf(key, token), expires_at: new Date(e * 1000) };
  }

  private expiry(seconds: number): number {
    return Math.floor(this.clock.now().getTime() / 1000) + seconds;
  }

  private urlOf(key: string, token: string): string {
    return `${this.baseUrl()}${OBJECT_ROUTE}/${key}?token=${encodeURIComponent(token)}`;
  }
}


function isExisting(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'EEXIST';
}

function isMissing(err: unknown): boolean {
  return err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ENOTDIR');
}
