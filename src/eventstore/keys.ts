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

/** Subjects of the service's own keys (`system:<name>`): never a person's, so never erased (migration 0167 backs this). */
export const RESERVED_SUBJECT_PREFIX = 'system:';

/** Refused: an erasure named a reserved subject, whose key the service itself needs (e.g. to find email claims). */
export class ReservedSubjectError extends Error {
  constructor(readonly subjects: string[]) {
    super(`refusing to erase reserved key ${subjects.join(', ')}: a system: key is the service's own (not a person's) and is never erased`);
  }
}

/** Throws ReservedSubjectError, erasing nothing, when `subjects` names a reserved subject. */
export function refuseReservedErasure(subjects: readonly string[]): void {
  const reserved = subjects.filter((s) => s.startsWith(RESERVED_SUBJECT_PREFIX));
  if (reserved.length > 0) throw new ReservedSubjectError(reserved);
}

/** A reserved subject's key, made on first use; throws if it was ever tombstoned (migration 0167 forbids it). */
export async function reservedKey(keys: KeyStore, subject: string, now: Date): Promise<Buffer> {
  const key = (await keys.ensure([subject], now)).get(subject);
  if (!key) throw new Error(`the reserved key ${subject} is erased: what it names cannot be found without it`);
  return key;
}
