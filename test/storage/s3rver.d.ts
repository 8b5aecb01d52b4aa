// The part of s3rver (an S3-compatible server on npm, used only by the S3 contract suite) the tests use.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  /** Options of an in-process S3 server. */
  export interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    configureBuckets?: { name: string }[];
  }
  /** An S3-compatible server (credentials S3RVER / S3RVER). */
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
