// The S3 adapter: the contract suite against s3rver (started here from the npm package; it does not verify SigV4 signatures,
// so the signature checks run only against TEST_S3_ENDPOINT, e.g. MinIO or AWS S3, when given).
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { TestClock } from '../../src/clock.ts';
import { S3ObjectStore } from '../../src/storage/s3.ts';
import { type ContractSubject, objectStoreContract } from './contract.ts';

async function openS3rver(): Promise<ContractSubject> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: mkdtempSync(path.join(os.tmpdir(), 's3rver-')), configureBuckets: [{ name: 'contract' }] });
  const addr = await server.run();
  const endpoint = `http://127.0.0.1:${addr.port}`;
  const clock = new TestClock(new Date());
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  const store = new S3ObjectStore({ kind: 's3', bucket: 'contract', prefix: 'core', endpoint }, clock, client);
  return { store, clock, close: async () => server.close() };
}

objectStoreContract('s3 on s3rver', openS3rver, { verifiesSignatures: false });

const endpoint = process.env.TEST_S3_ENDPOINT;
if (endpoint) {
  objectStoreContract(`s3 on ${endpoint}`, async () => {
    const bucket = process.env.TEST_S3_BUCKET ?? 'core-server-contract';
    const clock = new TestClock(new Date());
    const store = new S3ObjectStore({ kind: 's3', bucket, prefix: `contract-${Date.now()}`, endpoint }, clock);
    await store.client.send(new CreateBucketCommand({ Bucket: bucket })).catch(() => undefined); // it may exist already
    return { store, clock, close: async () => undefined };
  });
} else {
  console.log('S3 contract against TEST_S3_ENDPOINT did not run: TEST_S3_ENDPOINT is not set (the s3rver run above covers the S3 adapter).');
}
