// The billing area: customers, notes, invoices, payments, credit notes, feed, statements, overdue access.
import { billingCommands } from '../commands/billing/index.ts';
import { billingProjections } from '../projections/billing/index.ts';
import { billingQueries } from '../queries/billing/index.ts';
import { billingCollectionCommands } from '../commands/billing/collection.ts';
import { billingPaymentNotificationCommands } from '../commands/billing/payment-notifications.ts';
import { billingPaymentAttemptCommands } from '../commands/billing/payment-attempts.ts';
import { billingPaymentPageCommands } from '../commands/billing/payment-page.ts';
import { billingAccessReviewCommands } from '../commands/billing/access-review.ts';
import { billingAttachmentExpiryCommands } from '../commands/billing/attachment-expiry.ts';
import { billingOperatorCommands } from '../commands/billing/operator.ts';
import { billingReconciliationCommands } from '../commands/billing/reconciliation.ts';
import { overdueWorker } from '../workers/billing/overdue.ts';
import { collectionWorker } from '../workers/billing/collection.ts';
import { attachmentExpiryWorker } from '../workers/billing/attachment-expiry.ts';
import { reconciliationWorker } from '../workers/billing/reconciliation.ts';
import { messagesWorker } from '../workers/billing/messages.ts';
import { billingMessageCommands } from '../commands/billing/messages.ts';
import { retentionWorker } from '../workers/billing/retention.ts';
import { customersEndRetention } from '../commands/billing/retention-end.ts';
import { customersOperatorErase } from '../commands/billing/customer-erasure.ts';
import type { Area } from './area.ts';

/** Typed billing operations (tests call them through these); internal ones (surface `internal`) are invoked in process only. */
export const billingOperations = [...billingCommands, ...billingQueries, ...billingCollectionCommands, ...billingPaymentNotificationCommands, ...billingPaymentAttemptCommands, ...billingPaymentPageCommands, ...billingAccessReviewCommands, ...billingAttachmentExpiryCommands, ...billingOperatorCommands, ...billingReconciliationCommands, ...billingMessageCommands, customersEndRetention, customersOperatorErase];

/** The billing area as the composition root assembles it. */
export const billing: Area = { name: 'billing', operations: billingOperations, projections: billingProjections, workers: [collectionWorker, overdueWorker, attachmentExpiryWorker, reconciliationWorker, messagesWorker, retentionWorker] };
