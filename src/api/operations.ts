// Every operation of both surfaces. Add an area's operations here; the router and OpenAPI follow.
import type { Operation } from './operation.ts';
import { sessionsInsert, sessionsRemove } from '../commands/identity/sessions.ts';
import { sessionsGet } from '../queries/identity/sessions.ts';
import { billingCustomerCommands } from '../commands/billing/customers.ts';
import { billingCustomerQueries } from '../queries/billing/customers.ts';
import { billingNoteCommands } from '../commands/billing/notes.ts';
import { billingNoteQueries } from '../queries/billing/notes.ts';
import { billingInvoiceCommands } from '../commands/billing/invoices.ts';
import { billingInvoiceQueries } from '../queries/billing/invoices.ts';
import { billingPaymentCommands } from '../commands/billing/payments.ts';
import { billingPaymentQueries } from '../queries/billing/payments.ts';
import { billingCreditNoteRequestCommands } from '../commands/billing/credit-note-requests.ts';
import { billingCreditNoteRequestQueries } from '../queries/billing/credit-note-requests.ts';

/** The whole registry. */
export const operations: Operation[] = [
  sessionsInsert,
  sessionsGet,
  sessionsRemove,
  ...billingCustomerCommands,
  ...billingCustomerQueries,
  ...billingNoteCommands,
  ...billingNoteQueries,
  ...billingInvoiceCommands,
  ...billingInvoiceQueries,
  ...billingPaymentCommands,
  ...billingPaymentQueries,
  ...billingCreditNoteRequestCommands,
  ...billingCreditNoteRequestQueries,
];
