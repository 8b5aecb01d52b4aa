// User aggregate (profile, platform roles, that a password was set) and the email claim that keeps emails unique.
// Password hashes are not events: they live in user_credentials (commands/identity/credentials.ts).
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { identityErrors } from './errors.ts';
import { DataSubjectErasedSchema, personal } from '../personal.ts';

/** A role of platform staff. */
export const PlatformRole = z.enum(['billing_staff', 'platform_staff']);

/** Events of a user stream (`user-<id>`). */
export const UserEvents = eventSchemas({
  UserRegistered: z.object({ user_id: z.uuid(), email: personal(z.string(), { kind: 'user' }), name: personal(z.string(), { kind: 'user' }), registered_at: z.string() }),
  PlatformRoleGranted: z.object({ role: PlatformRole }),
  /** A password was set; the hash is in user_credentials. */
  PasswordSet: z.object({ set_at: z.string() }),
  /** Old logs only (these carried a hash); no longer written. */
  PasswordChanged: z.object({}),
  /** The user's personal data (email, name) was erased: the key of `user:<id>` is gone (issue 32). */
  UserErased: DataSubjectErasedSchema,
});

/**
 * Where events written before password hashes left the log carried one: `password_hash` in the data of these types.
 * The codecs ignore it (unknown keys are dropped); `core-server log encrypt-personal-data` removes it from the log.
 */
export const LEGACY_PASSWORD_HASH = { field: 'password_hash', types: ['UserRegistered', 'PasswordChanged'] } as const;

/** A user event (derived from `UserEvents`). */
export type UserEvent = EventOf<typeof UserEvents>;

/** How user events are read. */
export const userCodec = eventCodec(UserEvents);

/** What may be asked of a user. */
export type UserCommand =
  | { type: 'RegisterUser'; data: Omit<z.infer<typeof UserEvents.UserRegistered>, 'registered_at'> & { now: string } }
  | { type: 'GrantPlatformRole'; data: { role: z.infer<typeof PlatformRole> } }
  | { type: 'EraseUser'; data: Omit<z.infer<typeof DataSubjectErasedSchema>, 'erased_at'> & { now: string } };

/** What the user decider needs. */
export interface UserState {
  exists: boolean;
  roles: z.infer<typeof PlatformRole>[];
  /** The erasure of the user's personal data, once recorded. */
  erasure: z.infer<typeof DataSubjectErasedSchema> | null;
}

/** Pure user decider. */
export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  events: userCodec,
  initialState: () => ({ exists: false, roles: [], erasure: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return { ...state, exists: true };
      case 'PlatformRoleGranted':
        return { ...state, roles: [...state.roles, event.data.role] };
      case 'PasswordSet':
      case 'PasswordChanged':
        return state;
      case 'UserErased':
        return { ...state, erasure: event.data };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RegisterUser': {
        if (state.exists) throw identityErrors.error('user_exists', 'The user already exists.');
        const { now, ...rest } = command.data;
        return [
          { type: 'UserRegistered', data: { ...rest, registered_at: now } },
          { type: 'PasswordSet', data: { set_at: now } },
        ];
      }
      case 'GrantPlatformRole':
        if (!state.exists) throw identityErrors.error('user_not_found', 'No such user.');
        return state.roles.includes(command.data.role) ? [] : [{ type: 'PlatformRoleGranted', data: { role: command.data.role } }];
      case 'EraseUser': {
        if (!state.exists) throw identityErrors.error('user_not_found', 'No such user.');
        // Erased once: a retry (after a crash, or a second request) records nothing new.
        if (state.erasure) return [];
        const { now, ...erasure } = command.data;
        return [{ type: 'UserErased', data: { ...erasure, erased_at: now } }];
      }
      default:
        return assertNever(command);
    }
  },
};

/**
 * Email claim stream (`useremail-<v5(email)>`): the first claim wins, so two users never share an email. Erasing the
 * user releases the claim (issue 32), and the address can be claimed again by a new user.
 */
export const EmailClaimEvents = eventSchemas({
  EmailClaimed: z.object({ email: personal(z.string(), { kind: 'user', idField: 'user_id' }), user_id: z.string() }),
  /** The claim of `user_id` ended (its user was erased); the email is not repeated. */
  EmailClaimReleased: z.object({ user_id: z.string() }),
});

/** An email claim event (derived from `EmailClaimEvents`). */
export type EmailClaimEvent = EventOf<typeof EmailClaimEvents>;

/** How email claim events are read. */
export const emailClaimCodec = eventCodec(EmailClaimEvents);

/** Claim an email for a user; release a user's claim. */
export type EmailClaimCommand = { type: 'ClaimEmail'; data: { email: string; user_id: string } } | { type: 'ReleaseEmail'; data: { user_id: string } };

/** Pure email claim decider: the first claim wins; a released claim is free again. */
export const emailClaimDecider: Decider<EmailClaimCommand, EmailClaimEvent, { userId: string | null }> = {
  events: emailClaimCodec,
  initialState: () => ({ userId: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'EmailClaimed':
        return { userId: event.data.user_id };
      case 'EmailClaimReleased':
        return event.data.user_id === state.userId ? { userId: null } : state;
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ClaimEmail':
        if (state.userId && state.userId !== command.data.user_id) throw identityErrors.error('email_taken', `A user with email ${command.data.email} already exists.`);
        if (state.userId) return [];
        return [{ type: 'EmailClaimed', data: { email: command.data.email, user_id: command.data.user_id } }];
      case 'ReleaseEmail':
        // Only the holder's claim ends; a retry, or a claim another user took since, records nothing.
        return state.userId === command.data.user_id ? [{ type: 'EmailClaimReleased', data: { user_id: command.data.user_id } }] : [];
      default:
        return assertNever(command);
    }
  },
};
