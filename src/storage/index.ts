// Opens the configured object store (OBJECT_STORE): the file adapter, or S3 when that adapter is present.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../clock.ts';
import type { ObjectStoreSetting } from '../config.ts';
import { FileObjectStore } from './file.ts';
import { UrlSigner } from './signer.ts';

/** The secret that signs file-store URLs: OBJECT_URL_SECRET, else a random key kept in `<dir>/.url-signing-key` (made once, mode 0600). */
export async function signingSecret(dir: string, configured?: string): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, '.url-signing-key');
  try {
    await fs.writeFile(file, crypto.randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if (!(err instanceof Error && 'code' in err && err.code === 'EEXIST')) throw err;
  }
  return Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'hex');
}

/** Opens the file store of `setting`; `baseUrl()` is where the service is reached. */
export async function openFileObjectStore(setting: Extract<ObjectStoreSetting, { kind: 'file' }>, clock: Clock, baseUrl: () => string, secret?: string): Promise<FileObjectStore> {
  return new FileObjectStore(setting.dir, new UrlSigner(await signingSecret(setting.dir, secret), clock), clock, baseUrl);
}
