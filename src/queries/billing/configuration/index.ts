// Billing-configuration read operations.
import { configurationHistoryGet } from './history.ts';
import { relationshipsList } from './relationships.ts';
import { configurationPreviewGet, configurationResolveGet } from './resolve.ts';
import { relationshipEvidenceGet, relationshipEvidenceList } from './evidence.ts';

/** Every billing-configuration read operation. */
export const configurationQueries = [relationshipsList, configurationResolveGet, configurationPreviewGet, configurationHistoryGet, relationshipEvidenceList, relationshipEvidenceGet];
