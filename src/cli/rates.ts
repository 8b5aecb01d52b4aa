// `core-server rates import FILE`: records exchange rates from a CSV file (base,target,rate,as_of,source); a bad or refused row stops it before anything is written.
import { settle } from './settle.ts';
import fs from 'node:fs';
import type { Command } from 'commander';
import type { z } from 'zod';
import type { App } from '../app.ts';
import { CurrencyExchangeRateInsertRequest } from '../contract/schemas/billing-catalogue.ts';
import { operationOf } from './lazy.ts';
import { billingErrors } from '../domain/billing/errors.ts';
import { type WithApp, operator } from './clients.ts';

/** One rate row of an import file. */
export type RateRow = z.output<typeof CurrencyExchangeRateInsertRequest>;

const HEADER = ['base', 'target', 'rate', 'as_of', 'source'];

/**
 * Parses `base,target,rate,as_of,source` CSV (header first, no quoting, blank lines skipped). Every row is
 * checked like the API checks a request; the first bad row stops the import with its line number.
 * Rates stay the strings they are in the file.
 */
export function parseRatesCsv(text: string): RateRow[] {
  const lines = text.split(/\r?\n/).map((l, i) => ({ n: i + 1, cells: l.split(',').map((c) => c.trim()) })).filter((l) => l.cells.some((c) => c !== ''));
  const [head, ...rows] = lines;
  if (!head || head.cells.join(',') !== HEADER.join(',')) throw billingErrors.error('invalid_request', `The first line must be ${HEADER.join(',')}.`);
  return rows.map(({ n, cells }) => {
    if (cells.length !== HEADER.length) throw billingErrors.error('invalid_request', `Line ${n}: expected ${HEADER.length} fields, got ${cells.length}.`);
    const parsed = CurrencyExchangeRateInsertRequest.safeParse(Object.fromEntries(HEADER.map((h, i) => [h, cells[i]])));
    if (!parsed.success) throw billingErrors.error('invalid_request', `Line ${n}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return parsed.data;
  });
}

/** Records every row through billing.exchange-rates.import, as the CLI (each is first decided without appending, so a refused row writes nothing); returns how many changed something. */
export async function importRates(services: Pick<App, 'invoke' | 'registry'>, rows: RateRow[], reason = 'rates import'): Promise<{ recorded: number; unchanged: number }> {
  return (await services.invoke(operationOf(services, 'billing.exchange-rates.import'), { rows }, operator(reason))).body;
}

/** Adds `rates import FILE` to the program. */
export function addRatesCommands(program: Command, withApp: WithApp): void {
  program
    .command('rates')
    .description('Exchange rates')
    .command('import')
    .description('Records exchange rates from a CSV file with the header base,target,rate,as_of,source; a bad row stops the import before anything is written.')
    .argument('<file>', 'the CSV file')
    .action(async (file: string) => {
      const rows = parseRatesCsv(fs.readFileSync(file, 'utf8'));
      await withApp(async (app) => {
        const res = await importRates(app, rows, `rates import ${file}`);
        await settle(app);
        console.log(`recorded ${res.recorded} rate(s), ${res.unchanged} unchanged`);
      });
    });
}
