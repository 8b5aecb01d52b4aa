// An S3-compatible server for tests: s3rver from npm, in-process on an ephemeral port with a fresh directory and one bucket.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

/** A running s3rver: its endpoint, bucket, the service environment that points OBJECT_STORE at it, and close(). */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts s3rver with bucket `bucket` (credentials S3RVER / S3RVER). */
export async function startS3rver(bucket = 'attachments'): Promise<TestS3> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: mkdtempSync(path.join(os.tmpdir(), 's3rver-')), configureBuckets: [{ name: bucket }] });
  const addr = await server.run();
  const endpoint = `http://127.0.0.1:${addr.port}`;
  return {
    endpoint,
    bucket,
    env: { OBJECT_STORE: `s3://${bucket}/core`, S3_ENDPOINT: endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
    close: () => server.close(),
  };
}
