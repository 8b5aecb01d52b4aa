// Identity aggregates bound to their streams once.
import { organizationDecider } from '../../domain/identity/organization.ts';
import { userDecider } from '../../domain/identity/user.ts';
import { commandHandler } from '../run.ts';

/** `organization-<id>`: name, kind, members and sites. */
export const organizations = commandHandler(organizationDecider, (id) => `organization-${id}`);
/** `user-<id>`. */
export const users = commandHandler(userDecider, (id) => `user-${id}`);
// Email claims (`useremail-<keyed hash of the email>`, the first claim wins): email-claim-streams.ts.
