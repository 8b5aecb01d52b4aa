// `core-server erase customer <id>`: an operator erases a customer's personal data (issue 32), through the same
// erasure as billing.customers.erase, as the system job `cli`, with the legal basis and reason it is given.
import type { Command } from 'commander';
import { operationOf } from './lazy.ts';
import { LegalBasis } from '../contract/schemas/billing-erasure.ts';
import { type WithApp, operator } from './clients.ts';

/** Adds `erase customer` to the program. */
export function addEraseCommands(program: Command, withApp: WithApp): void {
  program
    .command('erase')
    .description("Erases a data subject's personal data for good (crypto-shredding; issued invoices keep what tax law requires until INVOICE_RETENTION_YEARS end).")
    .command('customer')
    .argument('<id>', 'customer id')
    .requiredOption('--legal-basis <basis>', `one of ${LegalBasis.options.join(', ')}`)
    .requiredOption('--reason <reason>', 'why (kept on the erasure event, e.g. the ticket)')
    .action(async (id: string, o: { legalBasis: string; reason: string }) => {
      await withApp(async (app) => {
        const { body } = await app.invoke(operationOf(app, 'billing.customers.operator-erase'), { id, legal_basis: o.legalBasis, reason: o.reason }, operator(`erase customer: ${o.reason}`));
        console.log(JSON.stringify(body, null, 2));
      });
    });
}
