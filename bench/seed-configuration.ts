// Set-up of the resolve phase: billing configuration appended through the real event store (events made by the
// real deciders, in memory), not measured. A large subscription (N relationships, every 10th with an accepted
// pre_existing claim and evidence; 1,000 revisions, each open-ended from a later day and superseding the tail
// of the one before) and a small one (1 relationship, 1 baseline, 1 pricing revision) as the unloaded reference.
import crypto from 'node:crypto';
import type { App } from '../src/app.ts';
import type { DomainEvent } from '../src/domain/decider.ts';
import type { EventMetadata } from '../src/eventstore/port.ts';
import { type RelationshipCommand, relationshipDecider, relationshipIdOf } from '../src/domain/billing/configuration/relationship.ts';
import { type RevisionCommand, revisionDecider } from '../src/domain/billing/configuration/revisions.ts';
import { subscriptionDecider } from '../src/domain/billing/subscription.ts';
import { billingConfigurationProjection } from '../src/projections/billing/configuration/configuration.ts';
import { billingSubscriptionsProjection } from '../src/projections/billing/subscriptions.ts';

/** What the resolve phase asks about. */
export interface BenchConfiguration {
  large: { subscriptionId: string; seller: string; buyers: string[] };
  small: { subscriptionId: string; seller: string; buyers: string[] };
  relationships: number;
  revisions: number;
}

const ACTOR = { type: 'staff' as const, id: 'bench-configuration' };
const DAY = 86_400_000;
const START = Date.parse('2024-01-01T00:00:00.000Z');

/** Appends `events` to `stream` (ids random: set-up, never retried). */
async function append(app: App, stream: string, orgId: string, events: DomainEvent[]): Promise<void> {
  const metadata: EventMetadata = { org_id: orgId, actor: ACTOR, request_id: null, correlation_id: null, causation_id: null };
  for (let i = 0; i < events.length; i += 200) {
    await app.store.appendToStream(stream, events.slice(i, i + 200).map((e) => ({ id: crypto.randomUUID(), type: e.type, data: e.data, metadata })), { expectedRevision: 'any', now: app.clock.now() });
  }
}

/** Folds commands through a decider in memory: the events a real run would append. */
function decideAll<C, E extends DomainEvent, S>(decider: { initialState: () => S; decide: (c: C, s: S) => E[]; evolve: (s: S, e: E) => S }, commands: C[]): E[] {
  let state = decider.initialState();
  const out: E[] = [];
  for (const c of commands) {
    const events = decider.decide(c, state);
    state = events.reduce(decider.evolve, state);
    out.push(...events);
  }
  return out;
}

async function subscription(app: App, orgId: string, now: string): Promise<string> {
  const id = crypto.randomUUID();
  const data = { subscription_id: id, organization_id: orgId, items: [{ price_id: crypto.randomUUID(), quantity: 1 }], status: 'active' as const, current_period_start: '2024-01-01T00:00:00.000Z', current_period_end: '2027-01-01T00:00:00.000Z', organization_exists: true, prices: {}, now };
  await append(app, `subscription-${id}`, orgId, subscriptionDecider.decide({ type: 'CreateSubscription', data }, subscriptionDecider.initialState()));
  return id;
}

async function relationships(app: App, sub: string, seller: string, buyers: string[], now: string): Promise<void> {
  for (const [i, buyer] of buyers.entries()) {
    const commands: RelationshipCommand[] = [{ type: 'RegisterRelationship', data: { subscription_id: sub, organization_id: seller, seller, buyer, now } }];
    if (i % 10 === 0) {
      commands.push({ type: 'ClaimPreExisting', data: { reason: 'pre-existing', now } }, { type: 'CommitEvidence', data: { evidence_id: crypto.randomUUID(), now } }, { type: 'DecideClaim', data: { decision: 'accepted', reason: 'checked', now } });
    }
    await append(app, `billingrelationship-${relationshipIdOf(sub, seller, buyer)}`, seller, decideAll(relationshipDecider, commands));
  }
}

/** `count` revisions alternating baseline and pricing; each kind's k-th is open-ended from START + k days and supersedes the one before. */
function revisionCommands(sub: string, seller: string, count: number): RevisionCommand[] {
  const commands: RevisionCommand[] = [];
  const last: Record<'baseline' | 'pricing', string | null> = { baseline: null, pricing: null };
  for (let i = 0; i < count; i++) {
    const kind = i % 2 === 0 ? 'pricing' : 'baseline';
    const k = Math.floor(i / 2);
    const revision_id = crypto.randomUUID();
    const base = {
      revision_id, subscription_id: sub, organization_id: seller, effective_from: new Date(START + k * DAY).toISOString(), effective_to: null,
      supersedes: last[kind] ? [last[kind]] : [], actor: ACTOR, reason: `revision ${i}`, now: new Date(START + i * 60_000).toISOString(),
    };
    last[kind] = revision_id;
    commands.push(kind === 'pricing'
      ? { type: 'RevisePricing', data: { ...base, currency: 'GBP', rates_bps: { platform_introduced: 500 + (k % 100), pre_existing: 100 }, minimum_fee: 25 } }
      : { type: 'ReviseBaseline', data: { ...base, monthly_exempt_amount: 100_000 + k, currency: 'GBP' } });
  }
  return commands;
}

/** Seeds both subscriptions from bench organizations (orgIds[0] sells to orgIds[1..n]; the last one is the small seller). */
export async function seedConfiguration(app: App, orgIds: string[], count: number, revisions: number): Promise<BenchConfiguration> {
  const now = app.clock.now().toISOString();
  const seller = orgIds[0] ?? '';
  const smallSeller = orgIds[orgIds.length - 1] ?? '';
  const buyers = orgIds.slice(1, count + 1);
  const large = await subscription(app, seller, now);
  const small = await subscription(app, smallSeller, now);
  await relationships(app, large, seller, buyers, now);
  await relationships(app, small, smallSeller, buyers.slice(0, 1), now);
  await append(app, `billingconfiguration-${large}`, seller, decideAll(revisionDecider, revisionCommands(large, seller, revisions)));
  await append(app, `billingconfiguration-${small}`, smallSeller, decideAll(revisionDecider, revisionCommands(small, smallSeller, 2)));
  await app.runner.waitFor(await app.store.headPosition(), [billingSubscriptionsProjection, billingConfigurationProjection], 600_000);
  return { large: { subscriptionId: large, seller, buyers }, small: { subscriptionId: small, seller: smallSeller, buyers: buyers.slice(0, 1) }, relationships: count, revisions };
}
