// Every event schema map that holds personal fields (issue 32): the log's encrypting decorator learns from this list
// which fields of which event types to encrypt. test/domain/personal-fields.test.ts checks no personal-looking field is missed.
import { personalFieldsOf } from './personal.ts';
import { customerEvents } from './billing/customer.ts';
import { noteEvents } from './billing/note.ts';
import { attachmentEvents } from './billing/attachment.ts';
import { EmailClaimEvents, UserEvents } from './identity/user.ts';
import { analyticsEvents } from './analytics/event.ts';
import { messageEvents } from './billing/message.ts';

/** Event type -> its personal fields, for every event type that has any. */
export const PERSONAL_FIELDS = personalFieldsOf([customerEvents, noteEvents, attachmentEvents, UserEvents, EmailClaimEvents, analyticsEvents, messageEvents]);
