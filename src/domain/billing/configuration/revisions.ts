// Configuration aggregate of one subscription (`billingconfiguration-<subscription id>`): its effective-dated
// baseline and pricing revisions. A new revision takes over its range from what it overlaps, which the request
// must name in `supersedes` (so nothing is replaced by accident); the timeline never has overlaps.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../../decider.ts';
import { type RevisionFacts, instant, timeline } from './snapshot.ts';
import { configurationErrors } from './errors.ts';
import { EventId, EventInstant, EventInt32 } from '../../event-fields.ts';

const ActorSchema = z.object({ type: z.enum(['user', 'staff', 'integration', 'system']), id: z.string() });
/** The part of an earlier revision's range a new revision took over. */
export const SupersededSchema = z.object({ revision_id: z.string(), effective_from: z.string(), effective_to: z.string().nullable() });
/** The part of an earlier revision's range a new revision took over. */
export type Superseded = z.infer<typeof SupersededSchema>;

const Revision = {
  revision_id: EventId,
  subscription_id: EventId,
  organization_id: z.string(),
  sequence: EventInt32,
  effective_from: EventInstant,
  effective_to: EventInstant.nullable(),
  actor: ActorSchema,
  reason: z.string(),
  recorded_at: EventInstant,
  supersedes: z.array(SupersededSchema),
};

/** Events of a configuration stream. */
export const revisionEvents = eventSchemas({
  BaselineRevisionRecorded: z.object({ ...Revision, monthly_exempt_amount: z.number(), currency: z.string() }),
  PricingRevisionRecorded: z.object({
    ...Revision,
    currency: z.string(),
    rates_bps: z.object({ platform_introduced: z.number(), pre_existing: z.number() }),
    minimum_fee: z.number(),
  }),
});

/** A configuration event (derived from `revisionEvents`). */
export type RevisionEvent = EventOf<typeof revisionEvents>;

/** How configuration events are read. */
export const revisionCodec = eventCodec(revisionEvents);


/** What every revision command carries (the handler fills ids, organization and actor). */
export interface RevisionInput {
  revision_id: string;
  subscription_id: string;
  organization_id: string;
  effective_from: string;
  effective_to: string | null;
  supersedes: string[];
  actor: z.infer<typeof ActorSchema>;
  reason: string;
  now: string;
}

/** What may be asked of a subscription's configuration. */
export type RevisionCommand =
  | { type: 'ReviseBaseline'; data: RevisionInput & { monthly_exempt_amount: number; currency: string } }
  | { type: 'RevisePricing'; data: RevisionInput & { currency: string; rates_bps: { platform_introduced: number; pre_existing: number }; minimum_fee: number } };

/** Revisions recorded so far, per kind, in recording order. */
export interface RevisionState {
  baseline: RevisionFacts[];
  pricing: RevisionFacts[];
}

function facts(d: z.infer<z.ZodObject<typeof Revision>>): RevisionFacts {
  const { revision_id, sequence, effective_from, effective_to, actor, reason, recorded_at, supersedes } = d;
  return { revision_id, sequence, effective_from, effective_to, actor, reason, recorded_at, supersedes: supersedes.map((s) => s.revision_id) };
}

/**
 * Checks a new revision against the current timeline of its kind and returns what it takes over.
 * Reversed or empty range -> invalid_range; overlapping a revision not named in supersedes -> revision_overlap;
 * naming one it does not overlap -> invalid_supersedes.
 */
export function takeOver(existing: readonly RevisionFacts[], input: Pick<RevisionInput, 'effective_from' | 'effective_to' | 'supersedes'>): Superseded[] {
  const from = instant(input.effective_from);
  const to = input.effective_to === null ? Infinity : instant(input.effective_to);
  if (!(to > from)) throw configurationErrors.error('invalid_range', `effective_to (${input.effective_to}) must be after effective_from (${input.effective_from}).`);
  const overlapped = timeline(existing, Infinity).filter((s) => s.from < to && s.to > from);
  const named = new Set(input.supersedes);
  const unnamed = [...new Set(overlapped.map((s) => s.revision.revision_id).filter((id) => !named.has(id)))];
  if (unnamed.length > 0) {
    throw configurationErrors.error('revision_overlap', `The range overlaps revision(s) ${unnamed.join(', ')}; name them in supersedes to replace that part of them.`);
  }
  const hit = new Set(overlapped.map((s) => s.revision.revision_id));
  const stray = input.supersedes.filter((id) => !hit.has(id));
  if (stray.length > 0) throw configurationErrors.error('invalid_supersedes', `supersedes names revision(s) ${stray.join(', ')} in force nowhere in the new range.`);
  return overlapped.map((s) => ({
    revision_id: s.revision.revision_id,
    effective_from: new Date(Math.max(s.from, from)).toISOString(),
    effective_to: Math.min(s.to, to) === Infinity ? null : new Date(Math.min(s.to, to)).toISOString(),
  }));
}

/** Pure configuration decider: appends a revision of either kind after the overlap check. */
export const revisionDecider: Decider<RevisionCommand, RevisionEvent, RevisionState> = {
  events: revisionCodec,
  initialState: () => ({ baseline: [], pricing: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'BaselineRevisionRecorded':
        return { ...state, baseline: [...state.baseline, facts(event.data)] };
      case 'PricingRevisionRecorded':
        return { ...state, pricing: [...state.pricing, facts(event.data)] };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    const now = command.data.now;
    switch (command.type) {
      case 'ReviseBaseline': {
        const supersedes = takeOver(state.baseline, command.data);
        const { monthly_exempt_amount, currency } = command.data;
        return [{ type: 'BaselineRevisionRecorded', data: { ...base(command.data), sequence: state.baseline.length + 1, recorded_at: now, supersedes, monthly_exempt_amount, currency } }];
      }
      case 'RevisePricing': {
        const supersedes = takeOver(state.pricing, command.data);
        const { currency, rates_bps, minimum_fee } = command.data;
        return [{ type: 'PricingRevisionRecorded', data: { ...base(command.data), sequence: state.pricing.length + 1, recorded_at: now, supersedes, currency, rates_bps, minimum_fee } }];
      }
      default:
        return assertNever(command);
    }
  },
};

function base(d: RevisionInput) {
  const { revision_id, subscription_id, organization_id, effective_from, effective_to, actor, reason } = d;
  return { revision_id, subscription_id, organization_id, effective_from, effective_to, actor, reason };
}
