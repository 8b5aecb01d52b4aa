// billing.configuration.relationship-evidence.prepare and .insert: private uploads of PDF or image evidence, shared with
// billing attachments (same aggregate, object storage port and content check), committed to one relationship.
import { operation } from '../../../contract/operation.ts';
import {
  RelationshipEvidenceInsertRequest,
  RelationshipEvidenceInsertResponse,
  RelationshipEvidencePrepareRequest,
  RelationshipEvidencePrepareResponse,
} from '../../../contract/schemas/billing-configuration.ts';
import { configurationErrors } from '../../../domain/billing/configuration/errors.ts';
import { billingAttachmentsProjection } from '../../../projections/billing/attachments.ts';
import { billingConfigurationProjection } from '../../../projections/billing/configuration/configuration.ts';
import { relationshipBody, relationshipOrNotFound } from '../../../queries/billing/configuration/details.ts';
import { commitAttachments, prepareAttachments } from '../attachments.ts';
import { relationships } from './handlers.ts';
import { writableSubscription } from './relationships.ts';

const COMMIT_ERRORS = ['attachment_not_found', 'attachment_not_uploaded', 'attachment_size_mismatch', 'attachment_content_mismatch', 'attachment_committed', 'attachment_expired'] as const;

export const relationshipEvidencePrepare = operation({
  id: 'billing.configuration.relationship-evidence.prepare', surface: 'core', tags: ['Billing'],
  examples: {
    request: { relationship_id: '019367eb-56a3-716d-83d9-01a8ae446a6c', files: [{ filename: 'SIGNED_TERMS_2026.PDF', content_type: 'application/pdf', size: 20480 }] },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          filename: 'SIGNED_TERMS_2026.PDF',
          content_type: 'application/pdf',
          size: 20480,
          upload_url: 'https://files.example.com/upload_url',
          upload_method: 'PUT',
          upload_headers: {},
        },
      ],
      expires_at: '2026-01-15T09:30:00.000Z',
      expires_in_seconds: 1,
    },
  },
  summary: 'Prepares private uploads of PDF or image files as evidence. Staff only.',
  description: 'Returns one private upload URL per file (PUT the exact bytes with the given Content-Type before expires_at) and a pending evidence id; commit with relationship-evidence.insert. Each URL takes one upload; upload URLs count towards RATE_LIMIT_UPLOAD_URLS_PER_MINUTE of the organization (429 rate_limited). PDF, PNG, JPEG, WebP or HEIC only, checked by content at commit. Billing staff only.',
  request: RelationshipEvidencePrepareRequest, response: RelationshipEvidencePrepareResponse, error: 'billing.RelationshipEvidencePrepareError',
  errors: configurationErrors.list('relationship_not_found', 'subscription_not_found', 'subscription_canceled', 'attachment_exists', 'rate_limited'), access: 'billing_staff', write: true,
  readModels: [billingAttachmentsProjection],
  async handle(ctx, req) {
    const rel = await relationshipOrNotFound(ctx, req.relationship_id);
    await writableSubscription(ctx, rel.subscription_id);
    return prepareAttachments(ctx, { type: 'relationship', id: rel.relationship_id }, req.files, rel.organization_id);
  },
});

export const relationshipEvidenceInsert = operation({
  id: 'billing.configuration.relationship-evidence.insert', surface: 'core', tags: ['Billing'],
  examples: {
    request: { relationship_id: '019367eb-56a3-716d-83d9-01a8ae446a6c', evidence: [{ id: '019387ea-5dfc-7b8e-884d-848979496e70' }] },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          filename: 'SIGNED_TERMS_2026.PDF',
          content_type: 'application/pdf',
          size: 20480,
          is_internal: false,
          uploaded_by: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
          created_at: '2026-01-15T09:30:00.000Z',
        },
      ],
      relationship: {
        id: '019387ea-5dfc-7b8e-884d-848979496e70',
        subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
        seller: '01932e74-64a5-79ba-8192-f1251866fea0',
        buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab',
        classification: null,
        claim_status: 'none',
        claims: [
          {
            status: 'claimed',
            actor: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
            reason: 'Agreed with the customer by phone',
            recorded_at: '2026-01-15T09:30:00.000Z',
          },
        ],
        evidence_count: 1,
        created_at: '2026-01-15T09:30:00.000Z',
        updated_at: '2026-01-15T09:30:00.000Z',
      },
    },
  },
  summary: 'Commits uploaded evidence to one relationship. Staff only.',
  description: 'Checks every upload (present, declared size, content really PDF or an image) before committing any; the checked bytes are frozen (downloads serve them, whatever reaches the upload URL later); a refused upload is final (prepare it again). Committing evidence is not claim acceptance: accept the claim with relationships.update. Billing staff only.',
  request: RelationshipEvidenceInsertRequest, response: RelationshipEvidenceInsertResponse, error: 'billing.RelationshipEvidenceInsertError',
  errors: configurationErrors.list('relationship_not_found', 'subscription_not_found', 'subscription_canceled', ...COMMIT_ERRORS), access: 'billing_staff', write: true,
  readModels: [billingAttachmentsProjection, billingConfigurationProjection],
  async handle(ctx, req) {
    const rel = await relationshipOrNotFound(ctx, req.relationship_id);
    await writableSubscription(ctx, rel.subscription_id);
    const committed = await commitAttachments(ctx, { type: 'relationship', id: rel.relationship_id }, req.evidence.map((e) => ({ id: e.id, is_internal: true })), rel.organization_id);
    // The relationship records each commit (the time axis resolve reads); a retry after a crash between the two appends the rest only.
    for (const item of committed.items) await relationships.run(ctx, rel.relationship_id, { type: 'CommitEvidence', data: { evidence_id: item.id } }, { orgId: rel.organization_id });
    await ctx.readYourWrites();
    return { items: committed.items, relationship: relationshipBody(await relationshipOrNotFound(ctx, rel.relationship_id), ctx.now) };
  },
});
