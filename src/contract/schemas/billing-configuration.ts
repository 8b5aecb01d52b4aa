// Schemas of billing configuration (relationships, baselines, pricing, history, resolve, preview), named as the spec names them.
import { z } from 'zod';
import { EVIDENCE_TYPES, MAX_ATTACHMENT_BYTES, MAX_FILES_PER_PREPARE } from '../../domain/billing/attachment-content.ts';
import { CurrencyCode, OUT_OF_RANGE, PageRequest, RequestInstant, Timestamp, Uuid, inRange, page } from './common.ts';
import { Actor } from './billing-customers.ts';
import { Attachment, AttachmentFilename, AttachmentsPrepareResponse } from './billing-attachments.ts';

/** An RFC 3339 timestamp with offset, in the years 1900-9999 once in UTC: the shared request instant. */
export const Moment = RequestInstant;

/** An instant given as a date (`YYYY-MM-DD`, midnight UTC) or an RFC 3339 timestamp with offset, in the years 1900-9999 once in UTC (the shared bound); stored as UTC. */
export const Instant = z.union([z.iso.date(), z.iso.datetime({ offset: true })]).refine(inRange, OUT_OF_RANGE);

const Reason = z.string().trim().min(1).max(1000).describe('Why (kept in the audit record), 1-1000 characters.');
const MAX_MINOR = 1e15;
const Bps = z.int().min(0).max(10_000);

/** How an order of a relationship is classified. */
export const ClassificationSchema = z.enum(['platform_introduced', 'pre_existing']);
/** Where a pre_existing claim stands. */
export const ClaimStatusSchema = z.enum(['none', 'claimed', 'accepted', 'rejected']).describe('none: never claimed; claimed: awaiting the staff decision; accepted | rejected: decided.');

export const ClaimChange = z
  .object({
    status: z.enum(['claimed', 'accepted', 'rejected']),
    actor: Actor,
    reason: z.string().nullable(),
    recorded_at: Timestamp,
  })
  .meta({ id: 'billing.RelationshipClaimChange' });

export const RelationshipInsertRequest = z
  .strictObject({
    subscription_id: Uuid.describe('The seller\'s subscription.'),
    seller: Uuid.describe('Seller organization: the subscription\'s organization.'),
    buyer: Uuid.describe('Buyer organization (not the seller).'),
  })
  .meta({ id: 'billing.RelationshipInsertRequest' });

export const RelationshipDetail = z
  .object({
    id: Uuid.describe('Relationship id, derived from (subscription, seller, buyer): registering the pair again returns it.'),
    subscription_id: Uuid,
    seller: Uuid,
    buyer: Uuid,
    classification: ClassificationSchema.nullable().describe('How its orders are classified now; null while a pre_existing claim awaits a decision.'),
    claim_status: ClaimStatusSchema,
    claims: z.array(ClaimChange).describe('Every claim and decision, oldest first.'),
    evidence_count: z.int().describe('Evidence files committed (committing is not acceptance).'),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'billing.RelationshipDetail' });

export const RelationshipListRequest = z
  .strictObject({
    subscription_id: Uuid,
    buyer: Uuid.optional().describe('Only the relationship with this buyer.'),
    claim_status: ClaimStatusSchema.optional().describe('Only relationships whose claim stands so.'),
    limit: z.int().min(1).max(1000).default(1000).describe('At most this many, oldest first (1-1000, default 1000).'),
    starting_after: Uuid.optional().describe('A relationship id: continue after it (the last id of the previous answer).'),
  })
  .meta({ id: 'billing.RelationshipListRequest' });

export const RelationshipUpdateRequest = z
  .strictObject({
    id: Uuid.describe('Relationship id.'),
    action: z
      .enum(['claim_pre_existing', 'accept_claim', 'reject_claim'])
      .describe('claim_pre_existing records the seller\'s claim; accept_claim (needs committed evidence) or reject_claim records the staff decision.'),
    reason: Reason,
  })
  .meta({ id: 'billing.RelationshipUpdateRequest' });

const RevisionRequest = {
  subscription_id: Uuid,
  effective_from: Instant.describe('Inclusive start: a date (midnight UTC) or an RFC 3339 timestamp.'),
  effective_to: Instant.nullable().optional().describe('Exclusive end; absent or null: open-ended.'),
  supersedes: z
    .array(Uuid)
    .max(1000)
    .default([])
    .describe('Ids of the revisions in force somewhere in the new range, which it replaces there (splitting or ending them). A range overlapping a revision not named here is refused (409 revision_overlap).'),
  reason: Reason,
};

export const SupersededPart = z
  .object({ revision_id: Uuid, effective_from: Timestamp, effective_to: Timestamp.nullable() })
  .describe('The part of an earlier revision\'s range this revision took over.')
  .meta({ id: 'billing.SupersededPart' });

const RevisionDetail = {
  id: Uuid.describe('Revision id.'),
  subscription_id: Uuid,
  sequence: z.int().describe('1, 2, ... per subscription and kind, in recording order.'),
  effective_from: Timestamp.describe('Inclusive.'),
  effective_to: Timestamp.nullable().describe('Exclusive; null: open-ended.'),
  actor: Actor.describe('Who recorded it.'),
  reason: z.string(),
  recorded_at: Timestamp.describe('When it was recorded (the recorded-time axis).'),
  supersedes: z.array(SupersededPart).describe('What it took over from earlier revisions.'),
};

export const BaselineWriteRequest = z
  .strictObject({
    ...RevisionRequest,
    monthly_exempt_amount: z.int().min(0).max(MAX_MINOR).describe('The seller\'s pre-existing monthly volume exempt from fees, in minor units.'),
    currency: CurrencyCode.describe('Currency of the amount; must be enabled for billing.'),
  })
  .meta({ id: 'billing.BaselineWriteRequest' });

export const BaselineDetail = z
  .object({ ...RevisionDetail, monthly_exempt_amount: z.int(), currency: z.string() })
  .meta({ id: 'billing.BaselineDetail' });

export const RatesBpsSchema = z
  .strictObject({
    platform_introduced: Bps.describe('Basis points (0-10,000) of order value for platform_introduced orders.'),
    pre_existing: Bps.describe('Basis points (0-10,000) of the non-exempt value of pre_existing orders.'),
  })
  .meta({ id: 'billing.PricingRates' });

export const PricingWriteRequest = z
  .strictObject({
    ...RevisionRequest,
    currency: CurrencyCode.describe('Currency of orders and fees; must be enabled for billing.'),
    rates_bps: RatesBpsSchema,
    minimum_fee: z.int().min(0).max(MAX_MINOR).describe('Minimum fee per charged order, in minor units (not applied to fully exempt orders or 0 bps).'),
  })
  .meta({ id: 'billing.PricingWriteRequest' });

export const PricingRevisionDetail = z
  .object({ ...RevisionDetail, currency: z.string(), rates_bps: z.object({ platform_introduced: z.int(), pre_existing: z.int() }), minimum_fee: z.int() })
  .meta({ id: 'billing.PricingRevisionDetail' });

const AsOf = Moment.optional().describe('Answer as known at this instant (recorded time); default now; not in the future.');

export const ConfigurationHistoryRequest = z
  .strictObject({
    subscription_id: Uuid,
    limit: z.int().min(1).max(100).default(50).describe('Page size, 1-100 (default 50).'),
    cursor: PageRequest.cursor,
    as_of: AsOf,
  })
  .meta({ id: 'billing.ConfigurationHistoryRequest' });

export const ConfigurationHistoryEntry = z
  .object({
    id: Uuid.describe('Entry id (the recorded event).'),
    kind: z.enum(['baseline', 'pricing', 'relationship_claim', 'relationship_decision']),
    recorded_at: Timestamp.describe('When.'),
    actor: Actor.describe('Who.'),
    reason: z.string().describe('Why.'),
    baseline: BaselineDetail.nullable().describe('The baseline revision recorded (kind baseline).'),
    pricing: PricingRevisionDetail.nullable().describe('The pricing revision recorded (kind pricing).'),
    relationship_id: Uuid.nullable().describe('The relationship (relationship kinds).'),
    claim_status: z.enum(['claimed', 'accepted', 'rejected']).nullable().describe('The claim status it moved to (relationship kinds).'),
    supersedes: z.array(SupersededPart).describe('What it superseded.'),
  })
  .meta({ id: 'billing.ConfigurationHistoryEntry' });

export const ConfigurationHistoryResponse = z
  .object({
    items: z.array(ConfigurationHistoryEntry).describe('Newest first.'),
    pagination: z.object({ cursor: z.string() }).nullable().describe('null on the last page.'),
  })
  .meta({ id: 'billing.ConfigurationHistoryResponse' });

const ResolveEvent = z
  .strictObject({ seller: Uuid.describe('Seller organization.'), buyer: Uuid.describe('Buyer organization.'), occurred_at: Moment.describe('When the event (order) happened: the effective-time axis.') })
  .meta({ id: 'billing.ConfigurationEvent' });

export const ConfigurationResolveRequest = z
  .strictObject({ subscription_id: Uuid, event: ResolveEvent, as_of: AsOf })
  .meta({ id: 'billing.ConfigurationResolveRequest' });

export const ResolvedRelationship = z
  .object({
    id: Uuid,
    seller: Uuid,
    buyer: Uuid,
    created_at: Timestamp,
    claim_status: ClaimStatusSchema.describe('As known at as_of.'),
    evidence_ids: z.array(Uuid).describe('Evidence committed by as_of.'),
  })
  .meta({ id: 'billing.ResolvedRelationship' });

export const ConfigurationResolveResponse = z
  .object({
    subscription_id: Uuid,
    event: z.object({ seller: Uuid, buyer: Uuid, occurred_at: Timestamp }),
    as_of: Timestamp,
    classification: ClassificationSchema.nullable().describe('null when the event cannot be classified (see unclassifiable_reason).'),
    unclassifiable_reason: z.enum(['claim_pending', 'claim_without_evidence']).nullable(),
    relationship: ResolvedRelationship.nullable().describe('null: no relationship registered (as known at as_of): platform_introduced.'),
    baseline: BaselineDetail.nullable().describe('Baseline revision in force at occurred_at as known at as_of.'),
    pricing: PricingRevisionDetail.nullable().describe('Pricing revision in force at occurred_at as known at as_of.'),
  })
  .meta({ id: 'billing.ConfigurationResolveResponse' });

/** Most samples per preview. */
export const MAX_PREVIEW_SAMPLES = 1000;

const Sample = z
  .strictObject({
    order_id: z.string().trim().min(1).max(200).optional().describe('Your id of the sample (default sample-<index>); unique in the request; the baseline tie-break.'),
    seller: Uuid,
    buyer: Uuid,
    amount: z.int().min(0).max(1e12).describe('Order value in minor units of the pricing currency (0 to 10^12).'),
    occurred_at: Moment,
  })
  .meta({ id: 'billing.ConfigurationPreviewSample' });

export const ConfigurationPreviewRequest = z
  .strictObject({
    subscription_id: Uuid,
    samples: z.array(Sample).min(1).max(MAX_PREVIEW_SAMPLES).describe(`1-${MAX_PREVIEW_SAMPLES} hypothetical orders, rated together (the monthly baseline is consumed across them).`),
    as_of: AsOf,
  })
  .meta({ id: 'billing.ConfigurationPreviewRequest' });

export const PreviewItem = z
  .object({
    order_id: z.string(),
    seller: Uuid,
    buyer: Uuid,
    amount: z.int(),
    occurred_at: Timestamp,
    classification: ClassificationSchema,
    relationship_id: Uuid.nullable(),
    currency: z.string(),
    rate_bps: z.int(),
    exempt_amount: z.int().describe('Part exempt under the monthly baseline.'),
    chargeable_amount: z.int(),
    minimum_fee: z.int(),
    fee: z.int().describe('Integer minor units, rounded half-even.'),
    baseline_revision_id: Uuid.nullable(),
    pricing_revision_id: Uuid,
  })
  .meta({ id: 'billing.ConfigurationPreviewItem' });

export const ConfigurationPreviewResponse = z
  .object({
    subscription_id: Uuid,
    as_of: Timestamp,
    items: z.array(PreviewItem).describe('One per sample, in request order.'),
    totals: z.array(z.object({ currency: z.string(), amount: z.int(), fee: z.int() })).describe('Sums per currency.'),
  })
  .meta({ id: 'billing.ConfigurationPreviewResponse' });

const EvidenceFile = z
  .strictObject({
    filename: AttachmentFilename,
    content_type: z.enum(EVIDENCE_TYPES).describe('PDF or an image; the committed content must match it (checked by its leading bytes, not its name).'),
    size: z.int().min(1).max(MAX_ATTACHMENT_BYTES).describe(`Exact size in bytes, 1-${MAX_ATTACHMENT_BYTES} (25 MiB).`),
  })
  .meta({ id: 'billing.RelationshipEvidenceFile' });

const RelationshipId = Uuid.describe('The relationship.');

export const RelationshipEvidencePrepareRequest = z
  .strictObject({ relationship_id: RelationshipId, files: z.array(EvidenceFile).min(1).max(MAX_FILES_PER_PREPARE).describe(`1-${MAX_FILES_PER_PREPARE} files, each PDF or an image.`) })
  .meta({ id: 'billing.RelationshipEvidencePrepareRequest' });

export const RelationshipEvidencePrepareResponse = AttachmentsPrepareResponse.meta({ id: 'billing.RelationshipEvidencePrepareResponse' });

export const RelationshipEvidenceInsertRequest = z
  .strictObject({
    relationship_id: RelationshipId,
    evidence: z.array(z.strictObject({ id: Uuid.describe('A pending evidence id from prepare.') })).min(1).max(MAX_FILES_PER_PREPARE).describe('Uploaded files to commit; all or none.'),
  })
  .meta({ id: 'billing.RelationshipEvidenceInsertRequest' });

export const RelationshipEvidenceInsertResponse = z
  .object({ items: z.array(Attachment).describe('The committed evidence.'), relationship: RelationshipDetail.describe('The relationship after the commit (its claim is not decided by it).') })
  .meta({ id: 'billing.RelationshipEvidenceInsertResponse' });

export const RelationshipEvidenceListRequest = z.strictObject({ relationship_id: RelationshipId, ...PageRequest }).meta({ id: 'billing.RelationshipEvidenceListRequest' });

export const RelationshipEvidenceListResponse = page(Attachment, 'billing.RelationshipEvidenceListResponse');

export const RelationshipEvidenceUrlRequest = z.strictObject({ relationship_id: RelationshipId, id: Uuid.describe('Evidence id.') }).meta({ id: 'billing.RelationshipEvidenceUrlRequest' });
