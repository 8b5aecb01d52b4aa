// Billing-configuration write operations.
import { relationshipsInsert, relationshipsUpdate } from './relationships.ts';
import { baselinesInsert, pricingInsert } from './revisions.ts';
import { relationshipEvidenceInsert, relationshipEvidencePrepare } from './evidence.ts';

/** Every billing-configuration write operation. */
export const configurationCommands = [relationshipsInsert, relationshipsUpdate, baselinesInsert, pricingInsert, relationshipEvidencePrepare, relationshipEvidenceInsert];
