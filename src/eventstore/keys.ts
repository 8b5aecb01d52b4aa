// The data-subject key port (issue 32): where the keys that encrypt personal fields live. The table adapter
// (key-table.ts) keeps them beside the read models; a KMS adapter would implement the same three calls.

/** A subject's key: 32 bytes, or null once the subject was erased (its key is gone for good). */
export type SubjectKey = Buffer | null;

/** Keys of data subjects, by subject id (`customer:<id>`, `customer:<id>:retained`, `user:<id>`, ...). */
export interface KeyStore {
  /** The keys of these subjects that exist or were erased; a subject never given a key is absent. */
  find(subjects: readonly string[]): Promise<Map<string, SubjectKey>>;
  /** Like find, but first creates a key for each subject that has none (concurrent creators agree on one key). */
  ensure(subjects: readonly string[], now: Date): Promise<Map<string, SubjectKey>>;
  /** Deletes the subjects' keys for good, leaving tombstones (idempotent; a subject without a key gets a tombstone). */
  erase(subjects: readonly string[], now: Date): Promise<void>;
}
