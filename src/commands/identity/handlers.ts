// Identity aggregates bound to their streams once.
import { nameId } from '../../ids.ts';
import { organizationDecider } from '../../domain/identity/organization.ts';
import { emailClaimDecider, userDecider } from '../../domain/identity/user.ts';
import { commandHandler } from '../run.ts';

/** `organization-<id>`: name, kind, members and sites. */
export const organizations = commandHandler(organizationDecider, (id) => `organization-${id}`);
/** `user-<id>`. */
export const users = commandHandler(userDecider, (id) => `user-${id}`);
/** `useremail-<v5(email)>`: the first claim of an email wins. */
export const emailClaims = commandHandler(emailClaimDecider, (email) => `useremail-${nameId('email', email)}`);
