// Every projection of the service.
import type { Projection } from './projection.ts';
import { identityProjection } from './identity/identity.ts';
import { billingCustomersProjection } from './billing/customers.ts';
import { billingNotesProjection } from './billing/notes.ts';
import { billingInvoicesProjection } from './billing/invoices.ts';
import { billingCreditNoteRequestsProjection } from './billing/credit-note-requests.ts';

/** All read-model builders, run by `project` and `start`, replayed by `rebuild`. */
export const projections: Projection[] = [identityProjection, billingCustomersProjection, billingNotesProjection, billingInvoicesProjection, billingCreditNoteRequestsProjection];
