// `core-server usage import FILE`: records orders from a CSV or NDJSON file in batches through billing.usage.insert's
// command (same checks, same idempotency). A bad row is reported with its line number and never stops the good ones.
import { settle } from './settle.ts';
import fs from 'node:fs';
import readline from 'node:readline';
import type { Command } from 'commander';
import { Option } from 'commander';
import { MAX_USAGE_BATCH, UsageOrderInput } from '../contract/schemas/billing-usage.ts';
import type { App } from '../app.ts';
import { operationOf } from './lazy.ts';
import { DomainError } from '../domain/errors.ts';
import { type WithApp, operator } from './clients.ts';

/** The columns of a usage CSV file, in this order (amount in minor units). */
export const USAGE_CSV_HEADER = ['order_id', 'seller', 'buyer', 'amount', 'currency', 'occurred_at'];

/** The two file formats. */
export type UsageFormat = 'csv' | 'ndjson';

/** What an import did; `errors` name the line of every row not recorded. */
export interface UsageImportResult {
  rows: number;
  recorded: number;
  already_recorded: number;
  /** Rows recorded now whose month's usage invoice already exists: billed on a supplementary invoice of that month. */
  late: number;
  failed: number;
  errors: { line: number; message: string }[];
}

/** The format a file name implies (`.csv`, `.ndjson` / `.jsonl`), or null. */
export function formatOf(file: string): UsageFormat | null {
  if (/\.csv$/i.test(file)) return 'csv';
  if (/\.(ndjson|jsonl)$/i.test(file)) return 'ndjson';
  return null;
}

/** Splits one CSV line (RFC 4180 quoting: `"a,b"`, `""` for a quote; no line breaks inside fields). Null when a quote is not closed. */
export function csvCells(line: string): string[] | null {
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    let cell = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return null;
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        cell += line[i++];
      }
      if (i < line.length && line[i] !== ',') return null;
    } else {
      const end = line.indexOf(',', i);
      cell = line.slice(i, end === -1 ? line.length : end);
      i = end === -1 ? line.length : end;
    }
    cells.push(cell);
    if (i >= line.length) return cells;
    i++; // the comma
  }
}

/** One line of the file as an order body (before validation), or the reason it is not one. */
function rowOf(format: UsageFormat, text: string): { body: unknown } | { error: string } {
  if (format === 'ndjson') {
    try {
      return { body: JSON.parse(text) };
    } catch {
      return { error: 'not a JSON object' };
    }
  }
  const cells = csvCells(text);
  if (!cells) return { error: 'a quoted field is not closed' };
  if (cells.length !== USAGE_CSV_HEADER.length) return { error: `expected ${USAGE_CSV_HEADER.length} fields, got ${cells.length}` };
  const [, seller, buyer, amount, currency, occurred_at] = cells.map((c) => c.trim());
  // The order id goes as written (the API refuses surrounding spaces rather than guess the id meant).
  // The amount stays text unless it is a whole number, so a bad value is reported as the API would.
  return { body: { order_id: cells[0], seller, buyer, amount: { amount: /^-?\d+$/.test(amount ?? '') ? Number(amount) : amount, currency }, occurred_at } };
}

/** A valid row waiting for its batch. */
interface Pending {
  line: number;
  order: ReturnType<typeof UsageOrderInput.parse>;
}

/**
 * Imports `lines` (the file's lines, first line 1): validates each row like the API, records valid rows in
 * batches of `batchSize`. When a batch is refused because of some of its orders (a conflict, a seller without a
 * subscription), those rows fail with the reason and the rest of the batch is recorded.
 */
export async function importUsage(
  services: Pick<App, 'invoke' | 'registry'>,
  lines: AsyncIterable<string> | Iterable<string>,
  opts: { format: UsageFormat; subscriptionId?: string; batchSize?: number; onProgress?: (r: UsageImportResult) => void; reason?: string },
): Promise<UsageImportResult> {
  const caller = operator(opts.reason ?? 'usage import');
  const result: UsageImportResult = { rows: 0, recorded: 0, already_recorded: 0, late: 0, failed: 0, errors: [] };
  const batchSize = Math.min(Math.max(opts.batchSize ?? MAX_USAGE_BATCH, 1), MAX_USAGE_BATCH);
  const fail = (line: number, message: string) => {
    result.failed++;
    result.errors.push({ line, message });
  };
  let pending: Pending[] = [];
  const flush = async () => {
    let batch = pending;
    pending = [];
    while (batch.length) {
      try {
        const { body: res } = await services.invoke(operationOf(services, 'billing.usage.import-batch'), { ...(opts.subscriptionId === undefined ? {} : { subscription_id: opts.subscriptionId }), orders: batch.map((p) => p.order) }, caller);
        result.recorded += res.recorded;
        result.late += res.items.filter((i) => i.late && i.status === 'recorded').length;
        // A file that names an order twice with the same facts counts the second one as already recorded.
        result.already_recorded += res.already_recorded + (batch.length - res.items.length);
        break;
      } catch (err) {
        const rejected = rejectedRows(err, batch.length);
        if (!rejected) throw err;
        for (const [i, message] of rejected) fail(batch[i]?.line ?? 0, message);
        batch = batch.filter((_, i) => !rejected.has(i));
      }
    }
    opts.onProgress?.(result);
  };
  let n = 0;
  let header = opts.format === 'csv';
  for await (const raw of lines) {
    n++;
    const text = raw.replace(/\r$/, '');
    if (text.trim() === '') continue;
    if (header) {
      header = false;
      if (text.split(',').map((c) => c.trim()).join(',') !== USAGE_CSV_HEADER.join(',')) {
        fail(n, `the first line must be the header ${USAGE_CSV_HEADER.join(',')}`);
        return result;
      }
      continue;
    }
    result.rows++;
    const row = rowOf(opts.format, text);
    if ('error' in row) {
      fail(n, row.error);
      continue;
    }
    const parsed = UsageOrderInput.safeParse(row.body);
    if (!parsed.success) {
      fail(n, parsed.error.issues.map((i) => `${i.path.join('.') || 'row'}: ${i.message}`).join('; '));
      continue;
    }
    pending.push({ line: n, order: parsed.data });
    if (pending.length >= batchSize) await flush();
  }
  await flush();
  result.errors.sort((a, b) => a.line - b.line);
  return result;
}

/**
 * The rows of a refused batch that caused the refusal, by index, with the reason; null when the refusal is not
 * about particular orders (then the import stops: the whole file would fail the same way).
 */
function rejectedRows(err: unknown, size: number): Map<number, string> | null {
  if (err instanceof DomainError && err.issues?.length) {
    const out = new Map<number, string>();
    for (const issue of err.issues) {
      const m = /^orders\.(\d+)/.exec(issue.path);
      if (m) out.set(Number(m[1]), `${err.code}: ${issue.message}`);
    }
    return out.size ? out : null;
  }
  // A refusal of the batch as a whole (e.g. an unknown --subscription): every row of it fails with that reason.
  if (err instanceof DomainError && err.status < 500) return new Map(Array.from({ length: size }, (_, i) => [i, `${err.code}: ${err.message}`]));
  return null;
}

/** Adds `usage import FILE` to the program. */
export function addUsageCommands(program: Command, withApp: WithApp, fail: (message: string) => Error): void {
  program
    .command('usage')
    .description('Usage facts (marketplace orders)')
    .command('import')
    .description(`Records orders from a CSV file (header ${USAGE_CSV_HEADER.join(',')}; amount in minor units) or an NDJSON file (one billing.usage.insert order per line). Bad rows are reported by line and skipped; the exit code is 1 when any row failed.`)
    .argument('<file>', 'the .csv or .ndjson file')
    .addOption(new Option('--format <format>', 'file format (default: from the file name)').choices(['csv', 'ndjson']))
    .option('--subscription <id>', "record every order under this subscription (default: each seller's active subscription)")
    .option('--batch-size <n>', `orders per batch, 1-${MAX_USAGE_BATCH}`, String(MAX_USAGE_BATCH))
    .action(async (file: string, o: { format?: UsageFormat; subscription?: string; batchSize: string }) => {
      const format = o.format ?? formatOf(file);
      if (!format) throw fail(`cannot tell the format of ${file}: name it .csv or .ndjson, or pass --format.`);
      const batchSize = Number(o.batchSize);
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_USAGE_BATCH) throw fail(`--batch-size must be a whole number from 1 to ${MAX_USAGE_BATCH}.`);
      if (!fs.existsSync(file)) throw fail(`no file ${file}.`);
      const total = fs.statSync(file).size;
      const input = fs.createReadStream(file, { encoding: 'utf8' });
      await withApp(async (app) => {
        await settle(app);
        const started = Date.now();
        const res = await importUsage(app, readline.createInterface({ input, crlfDelay: Infinity }), {
          format, subscriptionId: o.subscription, batchSize, reason: `usage import ${file}`,
          onProgress: (r) => process.stderr.write(`${progressBar(input.bytesRead / Math.max(total, 1))} ${r.rows} rows: ${r.recorded} recorded, ${r.already_recorded} already recorded, ${r.failed} failed\n`),
        });
        await settle(app);
        for (const e of res.errors) process.stderr.write(`line ${e.line}: ${e.message}\n`);
        console.log(`${res.rows} rows: ${res.recorded} recorded, ${res.already_recorded} already recorded, ${res.failed} failed${res.late ? `; ${res.late} late (their month is invoiced: billed on its next supplementary invoice)` : ''} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
        if (res.failed > 0) process.exitCode = 1;
      });
    });
}

// `[#####.....]  50%`
function progressBar(fraction: number): string {
  const f = Math.min(Math.max(fraction, 0), 1);
  const filled = Math.round(f * 20);
  return `[${'#'.repeat(filled)}${'.'.repeat(20 - filled)}] ${String(Math.round(f * 100)).padStart(3)}%`;
}
