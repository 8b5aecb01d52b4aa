// sites.list (extension): the repairer sites of the key's organization, so an app can fill `repairer_site_id`.
import { operation } from '../../contract/operation.ts';
import { SiteListV1 } from '../../contract/schemas/jobs.ts';
import { getOrganization } from '../identity/identity.ts';
import { integrationCaller } from './jobs.ts';
import { jobsErrors } from '../../domain/jobs/errors.ts';
import { exampleSite } from '../../contract/examples/jobs.ts';

/** sites.list: every site of the organization the key belongs to. */
export const sitesList = operation({
  id: 'sites.list',
  examples: {
    request: null,
    response: { items: [exampleSite] },
  },
  surface: 'integrations',
  tags: ['Integrations'],
  summary: 'Lists the repairer sites of your organization (the values `jobs.insert` accepts as `repairer_site_id`).',
  description: 'An extension. An organization has few sites, so the list is not paginated.',
  request: null,
  response: SiteListV1,
  error: 'SitesListError',
  errors: jobsErrors.list(),
  access: { integration: ['repairer'] },
  async handle(ctx) {
    const org = await getOrganization(ctx.services.knex, integrationCaller(ctx).organizationId);
    return { items: (org?.sites ?? []).map((s) => ({ id: s.id, name: s.name })) };
  },
});
