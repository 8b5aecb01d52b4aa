// Internal note aggregate (`note-<id>`) on a customer or an invoice; edits keep the earlier bodies in history.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { billingErrors } from './errors.ts';
import { EventId, EventInstant } from '../event-fields.ts';
import { DataSubjectErasedSchema, personal } from '../personal.ts';

// A note's text may say anything about a person: its own key, erased with the customer it is on.
const text = () => personal(z.string(), { kind: 'note' });

/** What a note is attached to. */
export const NoteSubjectSchema = z.object({ type: z.enum(['customer', 'invoice']), id: EventId });
/** What a note is attached to. */
export type NoteSubject = z.infer<typeof NoteSubjectSchema>;

/** Events of a note stream. */
export const noteEvents = eventSchemas({
  NoteAdded: z.object({ note_id: z.string(), subject: NoteSubjectSchema, organization_id: EventId, body: text(), created_at: EventInstant }),
  NoteEdited: z.object({ body: text(), previous_body: text(), edited_at: z.string() }),
  NoteRemoved: z.object({ removed_at: EventInstant }),
  /** The note's text was erased with the customer it is on (issue 32). */
  NoteErased: DataSubjectErasedSchema,
});

/** A note event (derived from `noteEvents`). */
export type NoteEvent = EventOf<typeof noteEvents>;

/** How note events are read. */
export const noteCodec = eventCodec(noteEvents);

/** What may be asked of a note. */
export type NoteCommand =
  | { type: 'AddNote'; data: { note_id: string; subject: NoteSubject; organization_id: string; body: string; now: string } }
  | { type: 'EditNote'; data: { body: string; now: string } }
  | { type: 'RemoveNote'; data: { now: string } }
  | { type: 'EraseNote'; data: Omit<z.infer<typeof DataSubjectErasedSchema>, 'erased_at'> & { now: string } };

/** What the note decider needs. */
export interface NoteState {
  status: 'none' | 'active' | 'removed';
  body: string;
  erased: boolean;
}

/** Pure note decider. */
export const noteDecider: Decider<NoteCommand, NoteEvent, NoteState> = {
  events: noteCodec,
  initialState: () => ({ status: 'none', body: '', erased: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'NoteAdded':
        return { status: 'active', body: event.data.body, erased: false };
      case 'NoteEdited':
        return { ...state, body: event.data.body };
      case 'NoteRemoved':
        return { ...state, status: 'removed' };
      case 'NoteErased':
        return { ...state, erased: true };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'AddNote': {
        if (state.status !== 'none') throw billingErrors.error('note_exists', 'The note already exists.');
        const { now, ...data } = command.data;
        return [{ type: 'NoteAdded', data: { ...data, created_at: now } }];
      }
      case 'EditNote':
        if (state.status !== 'active') throw billingErrors.error('note_not_found', 'No such note.');
        if (command.data.body === state.body) return [];
        return [{ type: 'NoteEdited', data: { body: command.data.body, previous_body: state.body, edited_at: command.data.now } }];
      case 'RemoveNote':
        if (state.status !== 'active') throw billingErrors.error('note_not_found', 'No such note.');
        return [{ type: 'NoteRemoved', data: { removed_at: command.data.now } }];
      case 'EraseNote': {
        if (state.status === 'none' || state.erased) return [];
        const { now, ...erasure } = command.data;
        return [{ type: 'NoteErased', data: { ...erasure, erased_at: now } }];
      }
      default:
        return assertNever(command);
    }
  },
};
