// Every operation of both surfaces. Add an area's operations here; the router and OpenAPI follow.
import type { Operation } from './operation.ts';
import { sessionsInsert, sessionsRemove } from '../commands/identity/sessions.ts';
import { sessionsGet } from '../queries/identity/sessions.ts';
import { billingCustomerCommands } from '../commands/billing/customers.ts';
import { billingCustomerQueries } from '../queries/billing/customers.ts';
import { billingNoteCommands } from '../commands/billing/notes.ts';
import { billingNoteQueries } from '../queries/billing/notes.ts';
import { integrationOperations } from '../commands/integrations/install.ts';
import { integrationsGet } from '../queries/integrations/current.ts';
import { billingInvoiceCommands } from '../commands/billing/invoices.ts';
import { billingInvoiceQueries } from '../queries/billing/invoices.ts';
import { billingPaymentCommands } from '../commands/billing/payments.ts';
import { billingPaymentQueries } from '../queries/billing/payments.ts';
import { billingCreditNoteRequestCommands } from '../commands/billing/credit-note-requests.ts';
import { billingCreditNoteRequestQueries } from '../queries/billing/credit-note-requests.ts';
import { billingEventQueries } from '../queries/billing/events.ts';
import { billingStatementQueries } from '../queries/billing/statements.ts';
import { billingOverdueQueries } from '../queries/billing/overdue.ts';
import { jobCommands } from '../commands/jobs/jobs.ts';
import { jobQueries } from '../queries/jobs/jobs.ts';
import { sitesList } from '../queries/jobs/sites.ts';
import { vehicleCommands } from '../commands/vehicles/preload.ts';

/** The whole registry. */
export const operations: Operation[] = [
  sessionsInsert,
  sessionsGet,
  sessionsRemove,
  ...billingCustomerCommands,
  ...billingCustomerQueries,
  ...billingNoteCommands,
  ...billingNoteQueries,
  ...integrationOperations,
  integrationsGet,
  ...billingInvoiceCommands,
  ...billingInvoiceQueries,
  ...billingPaymentCommands,
  ...billingPaymentQueries,
  ...billingCreditNoteRequestCommands,
  ...billingCreditNoteRequestQueries,
  ...billingEventQueries,
  ...billingStatementQueries,
  ...billingOverdueQueries,
  ...jobCommands,
  ...jobQueries,
  sitesList,
  ...vehicleCommands,
];
