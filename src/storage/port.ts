// The object storage port: private blobs by key, streamed in and out, with presigned upload and download URLs.
import type { Readable } from 'node:stream';

/** What is known of a stored object. */
export interface ObjectHead {
  size: number;
}

/** A presigned upload: PUT the bytes to `url` with `headers` before `expires_at`. */
export interface PresignedUpload {
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
  expires_at: Date;
}

/** A presigned download: GET `url` before `expires_at`. */
export interface PresignedDownload {
  url: string;
  expires_at: Date;
}

/** Private object storage (file system or S3-compatible). */
export interface ObjectStore {
  /** Stores `body` under `key`, replacing any object there. */
  put(key: string, body: Readable | Buffer, opts?: { contentType?: string }): Promise<void>;
  /** Size of the object, or null when there is none. */
  head(key: string): Promise<ObjectHead | null>;
  /** The object's bytes (the first `firstBytes` only, when given), or null when there is none. */
  get(key: string, opts?: { firstBytes?: number }): Promise<Readable | null>;
  /** Deletes the object; deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix` + '/' (rendered documents of an erased customer, issue 32); none is fine. */
  deleteUnder(prefix: string): Promise<void>;
  /** Moves the object to another key (replacing any object there), so URLs signed for `from` find nothing; a missing `from` is not an error (already moved). */
  move(from: string, to: string): Promise<void>;
  /**
   * Copies the object at `from` to `to`, where no upload URL reaches, unless `to` already holds an object (the first freeze
   * wins, so what was checked stays what is served); `from` stays. The head of `to`, or null when there was nothing to freeze.
   */
  freeze(from: string, to: string): Promise<ObjectHead | null>;
  /** A URL that accepts one PUT of at most `size` bytes of `contentType` to `key` for `expiresInSeconds`. */
  presignUpload(key: string, opts: { contentType: string; size: number; expiresInSeconds: number }): Promise<PresignedUpload>;
  /** A URL that serves `key` as a download named `filename` for `expiresInSeconds`. */
  presignDownload(key: string, opts: { filename: string; contentType: string; expiresInSeconds: number }): Promise<PresignedDownload>;
}

/** Where commit freezes an upload (attachments, imports): derived from the upload key, and reached by no upload URL. */
export function committedKey(uploadKey: string): string {
  return `committed/${uploadKey}`;
}

/** Object keys: lower-case path segments of [a-z0-9._-], no empty, `.` or `..` segment. */
export function isValidKey(key: string): boolean {
  return key.length <= 512 && key.split('/').every((s) => /^[a-z0-9][a-z0-9._-]*$/.test(s) && s !== '.' && s !== '..');
}

/** Throws unless `key` is a valid object key. */
export function assertKey(key: string): void {
  if (!isValidKey(key)) throw new Error(`invalid object key ${JSON.stringify(key)}`);
}

/** `Content-Disposition: attachment` with an ASCII fallback name and the exact name in RFC 5987 encoding. */
export function attachmentDisposition(filename: string): string {
  const fallback = filename.normalize('NFKD').replace(/[^\x20-\x7e]/g, '').replace(/["\\%;]/g, '_').trim() || 'download';
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/** An upload went past its signed size (a store's HTTP side answers it 413). */
export class TooLargeError extends Error {
  constructor() {
    super('object larger than allowed');
  }
}
