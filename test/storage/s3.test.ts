// The S3 adapter: the contract suite against s3rver (started here from the npm package; it does not verify SigV4 signatures,
// so the signature checks run only against TEST_S3_ENDPOINT, e.g. MinIO or AWS S3, when given).
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startS3rver } from '../support/s3.ts';
import { TestClock } from '../../src/clock.ts';
import { S3ObjectStore } from '../../src/storage/s3.ts';
import { type ContractSubject, objectStoreContract } from './contract.ts';

async function openS3rver(): Promise<ContractSubject> {
  const s3 = await startS3rver('contract');
  const clock = new TestClock(new Date());
  const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  const store = new S3ObjectStore({ kind: 's3', bucket: s3.bucket, prefix: 'core', endpoint: s3.endpoint }, clock, undefined, client);
  return { store, clock, close: () => s3.close() };
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
  console.log('S3 contract against TEST_S3_ENDPOINT did not run: TEST_S3_ENDPOINT is not set (s3rver above ran the rest of the suite).');
}
