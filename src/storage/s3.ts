// The S3 adapter (AWS S3, MinIO, Ceph or any S3-compatible store) through the AWS SDK v3 client and its presigner.
import { CopyObjectCommand, DeleteObjectCommand, ListObjectsV2Command, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import type { Clock } from '../clock.ts';
import type { ObjectStoreSetting } from '../config.ts';
import { type ObjectHead, type ObjectStore, type PresignedDownload, type PresignedUpload, assertKey, attachmentDisposition } from './port.ts';

/** Objects in one bucket (under an optional prefix); URLs presigned with SigV4 on the injected clock. */
export class S3ObjectStore implements ObjectStore {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(setting: Extract<ObjectStoreSetting, { kind: 's3' }>, private readonly clock: Clock, credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }, client?: S3Client) {
    this.bucket = setting.bucket;
    this.prefix = setting.prefix ? `${setting.prefix}/` : '';
    // Credentials and region come from the usual AWS variables and files; an endpoint means path-style addressing (MinIO, Ceph).
    this.client = client ?? new S3Client({ region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1', endpoint: setting.endpoint, forcePathStyle: setting.endpoint !== undefined, credentials });
  }

  private keyOf(key: string): string {
    assertKey(key);
    return `${this.prefix}${key}`;
  }

  async put(key: string, body: Readable | Buffer, opts: { contentType?: string } = {}): Promise<void> {
    const Key = this.keyOf(key);
    if (Buffer.isBuffer(body)) {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, ContentType: opts.contentType }));
      return;
    }
    await new Upload({ client: this.client, params: { Bucket: this.bucket, Key, Body: body, ContentType: opts.contentType } }).done();
  }

  async head(key: string) {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }));
      return { size: res.ContentLength ?? 0 };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async get(key: string, opts: { firstBytes?: number } = {}) {
    try {
      const range = opts.firstBytes ? `bytes=0-${opts.firstBytes - 1}` : undefined;
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key), Range: range }));
      return res.Body instanceof Readable ? res.Body : Readable.from([]);
    } catch (err) {
      if (isMissing(err) || (err instanceof S3ServiceException && err.name === 'InvalidRange')) return isMissing(err) ? null : Readable.from([]);
      throw err;
    }
  }

  async deleteUnder(prefix: string): Promise<void> {
    const Prefix = `${this.keyOf(prefix)}/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: o.Key }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }));
  }

  async move(from: string, to: string): Promise<void> {
    // S3 has no rename: copy, then delete the source (objects here are at most 25 MiB, within one CopyObject's 5 GiB).
    try {
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: this.keyOf(to), CopySource: encodeURI(`${this.bucket}/${this.keyOf(from)}`) }));
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    await this.delete(from);
  }

  async freeze(from: string, to: string): Promise<ObjectHead | null> {
    // The first freeze wins; a server-side copy (no bytes through us). `from` stays: where the store honours the signed
    // If-None-Match, the object there keeps refusing replays of its upload URL.
    const frozen = await this.head(to);
    if (frozen) return frozen;
    try {
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: this.keyOf(to), CopySource: encodeURI(`${this.bucket}/${this.keyOf(from)}`) }));
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    return this.head(to);
  }

  async presignUpload(key: string, opts: { contentType: string; size: number; expiresInSeconds: number }): Promise<PresignedUpload> {
    const signingDate = this.clock.now();
    // Content-Type, Content-Length and If-None-Match are signed: the PUT must carry exactly the declared type and size, and
    // (on stores with conditional writes: AWS S3, recent MinIO) cannot replace an object, so a checked file stays as checked.
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key), ContentType: opts.contentType, ContentLength: opts.size, IfNoneMatch: '*' });
    const url = await getSignedUrl(this.client, command, { expiresIn: opts.expiresInSeconds, signingDate, signableHeaders: new Set(['content-type', 'content-length', 'if-none-match']) });
    return { url, method: 'PUT', headers: { 'Content-Type': opts.contentType, 'If-None-Match': '*' }, expires_at: new Date(Math.floor(signingDate.getTime() / 1000) * 1000 + opts.expiresInSeconds * 1000) };
  }

  async presignDownload(key: string, opts: { filename: string; contentType: string; expiresInSeconds: number }): Promise<PresignedDownload> {
    const signingDate = this.clock.now();
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key), ResponseContentDisposition: attachmentDisposition(opts.filename), ResponseContentType: opts.contentType });
    const url = await getSignedUrl(this.client, command, { expiresIn: opts.expiresInSeconds, signingDate });
    return { url, expires_at: new Date(Math.floor(signingDate.getTime() / 1000) * 1000 + opts.expiresInSeconds * 1000) };
  }
}

function isMissing(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404);
}
