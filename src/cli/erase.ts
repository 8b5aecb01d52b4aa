// `core-server erase customer|user <id>`: an operator erases a data subject's personal data (issue 32), through the same
// erasure as billing.customers.erase / identity.users.erase, as the system job `cli`, with the legal basis and reason it is given.
import type { Command } from 'commander';
import { operationOf } from './lazy.ts';
import { LegalBasis } from '../contract/schemas/billing-erasure.ts';
import { type WithApp, operator } from './clients.ts';
import type { App } from '../app.ts';

// An erasure answers once its read models rewrote their rows (then it compacts): with no projector running (the embedded
// database, or none started), this process projects while it erases, as settle catches up alone (cli/settle.ts).
async function projecting(app: App): Promise<void> {
  // Loaded here, not at the top: describing the commands must not load the database driver.
  const { projectorRunning } = await import('../projections/engine/presence.ts');
  if (!(await projectorRunning(app.knex, app.db.kind))) app.runner.start();
}

/** Adds `erase customer` and `erase user` to the program. */
export function addEraseCommands(program: Command, withApp: WithApp): void {
  const erase = program
    .command('erase')
    .description("Erases a data subject's personal data for good (crypto-shredding; issued invoices keep what tax law requires until INVOICE_RETENTION_YEARS end).");
  const subject = (name: 'customer' | 'user', run: (id: string, legalBasis: string, reason: string) => Promise<unknown>) =>
    erase
      .command(name)
      .argument('<id>', `${name} id`)
      .requiredOption('--legal-basis <basis>', `one of ${LegalBasis.options.join(', ')}`)
      .requiredOption('--reason <reason>', 'why (kept on the erasure event, e.g. the ticket)')
      .action(async (id: string, o: { legalBasis: string; reason: string }) => console.log(JSON.stringify(await run(id, o.legalBasis, o.reason), null, 2)));
  subject('customer', (id, legal_basis, reason) =>
    withApp(async (app) => {
      await projecting(app);
      return (await app.invoke(operationOf(app, 'billing.customers.operator-erase'), { id, legal_basis, reason }, operator(`erase customer: ${reason}`))).body;
    }));
  subject('user', (id, legal_basis, reason) =>
    withApp(async (app) => {
      await projecting(app);
      return (await app.invoke(operationOf(app, 'identity.users.operator-erase'), { id, legal_basis, reason }, operator(`erase user: ${reason}`))).body;
    }));
}
