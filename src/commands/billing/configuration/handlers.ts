// Billing-configuration aggregates bound to their streams once: every configuration write goes through one of these.
import { relationshipDecider } from '../../../domain/billing/configuration/relationship.ts';
import { revisionDecider } from '../../../domain/billing/configuration/revisions.ts';
import { commandHandler } from '../../run.ts';

/** `billingrelationship-<id>` (id from relationshipIdOf: one stream per (subscription, seller, buyer)). */
export const relationships = commandHandler(relationshipDecider, (id) => `billingrelationship-${id}`);
/** `billingconfiguration-<subscription id>`: the subscription's baseline and pricing revisions. */
export const configurations = commandHandler(revisionDecider, (subscriptionId) => `billingconfiguration-${subscriptionId}`);
