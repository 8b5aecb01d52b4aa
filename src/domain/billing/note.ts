// Internal note aggregate (`note-<id>`) on a customer or an invoice; edits keep the earlier bodies in history.
import { type Decider, assertNever } from '../decider.ts';
import { billingErrors } from './errors.ts';

/** What a note is attached to. */
export interface NoteSubject {
  type: 'customer' | 'invoice';
  id: string;
}

export type NoteEvent =
  | { type: 'NoteAdded'; data: { note_id: string; subject: NoteSubject; organization_id: string; body: string; created_at: string } }
  | { type: 'NoteEdited'; data: { body: string; previous_body: string; edited_at: string } }
  | { type: 'NoteRemoved'; data: { removed_at: string } };

export type NoteCommand =
  | { type: 'AddNote'; data: { note_id: string; subject: NoteSubject; organization_id: string; body: string; now: string } }
  | { type: 'EditNote'; data: { body: string; now: string } }
  | { type: 'RemoveNote'; data: { now: string } };

export interface NoteState {
  status: 'none' | 'active' | 'removed';
  body: string;
}

/** Pure note decider. */
export const noteDecider: Decider<NoteCommand, NoteEvent, NoteState> = {
  initialState: () => ({ status: 'none', body: '' }),
  evolve(state, event) {
    switch (event.type) {
      case 'NoteAdded':
        return { status: 'active', body: event.data.body };
      case 'NoteEdited':
        return { ...state, body: event.data.body };
      case 'NoteRemoved':
        return { ...state, status: 'removed' };
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
      default:
        return assertNever(command);
    }
  },
};
