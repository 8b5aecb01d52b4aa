// billing_notes: one document per live note (removed notes leave the read model, not the log).
import type { Actor } from '../../eventstore/port.ts';
import { type NoteEvent, type NoteSubject, noteCodec } from '../../domain/billing/note.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { ERASED } from '../../domain/personal.ts';

/** The stored note: exactly the billing.Note body plus its organization. */
export interface NoteDoc {
  id: string;
  subject: NoteSubject;
  organization_id: string;
  body: string;
  author: Actor;
  created_at: string;
  updated_at: string;
  history: { body: string; replaced_at: string; editor: Actor }[];
}

/** Builds billing_notes from note events. */
export const billingNotesProjection = documentProjection({
  name: 'billing.notes',
  version: 1,
  tables: [
    documentTable<NoteDoc, NoteEvent>({
      table: 'billing_notes',
      events: noteCodec,
      columns: (d) => ({ subject_type: d.subject.type, subject_id: d.subject.id, organization_id: d.organization_id, created_at: d.created_at }),
      handlers: {
        NoteAdded: (_doc, d, e) => ({
          id: d.note_id,
          subject: d.subject,
          organization_id: d.organization_id,
          body: d.body,
          author: e.metadata.actor,
          created_at: d.created_at,
          updated_at: d.created_at,
          history: [],
        }),
        NoteEdited: (doc, d, e) => doc && { ...doc, body: d.body, updated_at: d.edited_at, history: [...doc.history, { body: d.previous_body, replaced_at: d.edited_at, editor: e.metadata.actor }] },
        NoteRemoved: () => null,
        // The live row loses the text and its earlier versions at once (a rebuild reads them as "[erased]" from the log).
        NoteErased: (doc) => doc && { ...doc, body: ERASED, history: doc.history.map((h) => ({ ...h, body: ERASED })) },
      },
    }),
  ],
});
