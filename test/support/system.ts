// A command context as the system (job `cli`), for fixtures that call command functions directly (a member added, a site made):
// the pipeline makes its metadata, as it does for every caller.
import type { Knex } from 'knex';
import type { App } from '../../src/app.ts';
import type { KeyStore } from '../../src/eventstore/keys.ts';
import { type CommandContext, systemAuth } from '../../src/context.ts';
import { systemCommandContext } from '../../src/pipeline/invoke.ts';

/** The system's command context over `app`; `reason` is kept in the events' metadata. */
export function systemContext(app: Pick<App, 'store' | 'clock' | 'knex' | 'personalData'>, reason?: string): CommandContext & { knex: Knex; keys: KeyStore } {
  return { ...systemCommandContext(app, { auth: systemAuth('cli'), ...(reason ? { reason } : {}) }), keys: app.personalData.keys };
}
