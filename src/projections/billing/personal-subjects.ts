// billing_personal_subjects (id = the subject): every note, attachment and customer email of an organization as a data subject
// (`note:<id>`, `attachment:<id>`, `message:<id>`), kept after the note or file is removed (its text or name is still in the log), so erasing the
// organization's customer erases them all; and each erased customer's retention key (`customer:<id>:retained`) with the
// day its retention period ends, until the retention worker erased it. Read by queries/billing/personal-subjects.ts.
import type { Knex } from 'knex';
import type { Projection } from '../projection.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { noteCodec } from '../../domain/billing/note.ts';
import { attachmentCodec } from '../../domain/billing/attachment.ts';
import { customerCodec } from '../../domain/billing/customer.ts';
import { messageCodec } from '../../domain/billing/message.ts';
import { readRecorded, streamCategory, streamKey } from '../recorded.ts';

const TYPES = new Set(['NoteAdded', 'AttachmentPrepared', 'MessageDecided', 'DataSubjectErased', 'RetainedDataErased']);

async function applyOne(trx: Knex, e: RecordedEvent): Promise<void> {
  const category = streamCategory(e.streamId);
  if (category === 'note') {
    const read = readRecorded(noteCodec, e);
    if (read.type === 'NoteAdded') await trx('billing_personal_subjects').insert({ id: `note:${streamKey(e)}`, organization_id: read.data.organization_id }).onConflict('id').ignore();
  } else if (category === 'attachment') {
    const read = readRecorded(attachmentCodec, e);
    if (read.type === 'AttachmentPrepared') await trx('billing_personal_subjects').insert({ id: `attachment:${streamKey(e)}`, organization_id: read.data.organization_id }).onConflict('id').ignore();
  } else if (category === 'message') {
    const read = readRecorded(messageCodec, e);
    if (read.type === 'MessageDecided') await trx('billing_personal_subjects').insert({ id: `message:${streamKey(e)}`, organization_id: read.data.organization_id }).onConflict('id').ignore();
  } else if (category === 'customer' && e.metadata.org_id) {
    const read = readRecorded(customerCodec, e);
    if (read.type === 'DataSubjectErased') {
      for (const subject of read.data.retained) {
        await trx('billing_personal_subjects').insert({ id: subject, organization_id: e.metadata.org_id, retained_until: read.data.retained_until }).onConflict('id').merge(['retained_until']);
      }
    } else if (read.type === 'RetainedDataErased') {
      await trx('billing_personal_subjects').whereIn('id', read.data.erased).delete();
    }
  }
}

/** Builds billing_personal_subjects from note, attachment and customer erasure events. */
export const billingPersonalSubjectsProjection: Projection = {
  name: 'billing.personal-subjects',
  // 2: customer emails (`message:<id>`) are subjects too.
  version: 2,
  tables: ['billing_personal_subjects'],
  handles: (type) => TYPES.has(type),
  async apply(trx, events) {
    for (const e of events) if (TYPES.has(e.type)) await applyOne(trx, e);
  },
};
