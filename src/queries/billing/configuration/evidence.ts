// billing.configuration.relationship-evidence.list and .get: committed evidence of one relationship, through the billing attachment reads.
import { operation } from '../../../contract/operation.ts';
import { AttachmentUrlResponse } from '../../../contract/schemas/billing-attachments.ts';
import { RelationshipEvidenceListRequest, RelationshipEvidenceListResponse, RelationshipEvidenceUrlRequest } from '../../../contract/schemas/billing-configuration.ts';
import { DOWNLOAD_URL_SECONDS } from '../../../domain/billing/attachment-content.ts';
import { configurationErrors } from '../../../domain/billing/configuration/errors.ts';
import { attachmentUrl, listAttachments } from '../attachments.ts';
import { relationshipOrNotFound } from './details.ts';

export const relationshipEvidenceList = operation({
  id: 'billing.configuration.relationship-evidence.list', surface: 'core', tags: ['Billing'],
  examples: {
    request: { relationship_id: '019367eb-56a3-716d-83d9-01a8ae446a6c' },
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
      pagination: null,
    },
  },
  summary: 'Lists evidence of one relationship. Staff only.',
  description: 'Committed evidence, oldest first, paginated (limit 1-200, default 50; cursor). Billing staff only.',
  request: RelationshipEvidenceListRequest, response: RelationshipEvidenceListResponse, error: 'billing.RelationshipEvidenceListError',
  errors: configurationErrors.list('relationship_not_found', 'invalid_cursor'), access: 'billing_staff',
  async handle(ctx, req) {
    const rel = await relationshipOrNotFound(ctx, req.relationship_id);
    return listAttachments(ctx, { type: 'relationship', id: rel.relationship_id }, req.limit, req.cursor, rel.organization_id);
  },
});

export const relationshipEvidenceGet = operation({
  id: 'billing.configuration.relationship-evidence.get', surface: 'core', tags: ['Billing'],
  examples: {
    request: { relationship_id: '019367eb-56a3-716d-83d9-01a8ae446a6c', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: { url: 'https://files.example.com/url', expires_at: '2026-01-15T09:30:00.000Z', expires_in_seconds: 1 },
  },
  summary: 'Returns a short-lived private download URL. Staff only.',
  description: `A private download URL valid for ${DOWNLOAD_URL_SECONDS} seconds; the file is served as an attachment under its original name. Billing staff only.`,
  request: RelationshipEvidenceUrlRequest, response: AttachmentUrlResponse, error: 'billing.RelationshipEvidenceUrlError',
  errors: configurationErrors.list('relationship_not_found', 'attachment_not_found'), access: 'billing_staff',
  async handle(ctx, req) {
    const rel = await relationshipOrNotFound(ctx, req.relationship_id);
    return attachmentUrl(ctx, { type: 'relationship', id: rel.relationship_id }, req.id, rel.organization_id);
  },
});
