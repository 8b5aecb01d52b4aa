// auth.organizations.list (internal): the organizations the signed-in user can act in, for the pages' organization switcher.
import { operation } from '../../contract/operation.ts';
import { OrganizationChoices } from '../../contract/schemas/identity.ts';
import { identityErrors } from '../../domain/identity/errors.ts';
import { organizationsOfUser } from './identity.ts';

/** auth.organizations.list */
export const organizationsList = operation({
  id: 'auth.organizations.list',
  surface: 'internal',
  tags: ['Authentication'],
  summary: 'Lists the signed-in user\'s organizations (id, name, kind, role), by name.',
  request: null,
  response: OrganizationChoices,
  error: 'auth.OrganizationListError',
  errors: identityErrors.list(),
  access: 'org_user',
  async handle(ctx) {
    return organizationsOfUser(ctx.services.knex, ctx.auth.userId);
  },
});
