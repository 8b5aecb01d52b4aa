// Streams the records of an import file (CSV per RFC 4180, or NDJSON) without holding the file in memory.
import { CSV_COLUMNS, REQUIRED_CSV_COLUMNS, csvRowObject } from '../../domain/ingest/sellable-item.ts';

/** One record of the file: the line it starts on and its row object, or why it could not be read. */
export type FileRecord = { line: number; value: unknown } | { line: number; unreadable: string };

/** The file as a whole cannot be read (encoding, header): the import fails with this code. */
export class ImportFileError extends Error {
  constructor(
    readonly code: 'invalid_encoding' | 'invalid_header' | 'too_many_rows',
    message: string,
  ) {
    super(message);
  }
}

/** Longest record accepted (bytes of text); a longer one is reported as unreadable and skipped. */
export const MAX_RECORD_CHARS = 64 * 1024;

// UTF-8 text of the byte chunks; a byte sequence that is not UTF-8 stops the file.
async function* text(body: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  try {
    for await (const chunk of body) yield decoder.decode(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, { stream: true });
    yield decoder.decode();
  } catch (err) {
    if (err instanceof TypeError) throw new ImportFileError('invalid_encoding', 'The file is not UTF-8 text.');
    throw err;
  }
}

/** The records of an NDJSON file: one JSON object per line; blank lines are skipped. */
export async function* ndjsonRecords(body: AsyncIterable<Buffer | string>): AsyncGenerator<FileRecord> {
  let line = 0;
  let rest = '';
  const one = (raw: string): FileRecord | null => {
    line++;
    const s = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (s.trim() === '') return null;
    if (s.length > MAX_RECORD_CHARS) return { line, unreadable: `the line is longer than ${MAX_RECORD_CHARS} characters` };
    try {
      return { line, value: JSON.parse(s) as unknown };
    } catch {
      return { line, unreadable: 'not valid JSON' };
    }
  };
  for await (const t of text(body)) {
    rest += t;
    let nl = rest.indexOf('\n');
    let from = 0;
    while (nl !== -1) {
      const r = one(rest.slice(from, nl));
      if (r) yield r;
      from = nl + 1;
      nl = rest.indexOf('\n', from);
    }
    rest = rest.slice(from);
    // A line without an end that keeps growing: stop buffering it, report it once its end arrives.
    if (rest.length > MAX_RECORD_CHARS * 2) rest = rest.slice(0, MAX_RECORD_CHARS + 1);
  }
  const last = one(rest);
  if (rest !== '' && last) yield last;
}

/** The cells of a CSV file record by record (RFC 4180: quoted fields may hold commas, quotes doubled, and line breaks). */
async function* csvCells(body: AsyncIterable<Buffer | string>): AsyncGenerator<{ line: number; cells: string[]; tooLong: boolean; badQuote: boolean }> {
  let line = 1;
  let start = 1;
  let cells: string[] = [];
  let cell = '';
  let size = 0;
  let cellLen = 0;
  let quoted = false;
  let afterQuote = false;
  let badQuote = false;
  let pendingCr = false;
  const take = (c: string) => {
    if (size < MAX_RECORD_CHARS) cell += c;
    size++;
    cellLen++;
  };
  const end = () => {
    cells.push(cell);
    const out = { line: start, cells, tooLong: size > MAX_RECORD_CHARS, badQuote };
    cells = [];
    cell = '';
    size = 0;
    cellLen = 0;
    badQuote = false;
    afterQuote = false;
    return out;
  };
  for await (const t of text(body)) {
    for (let i = 0; i < t.length; i++) {
      const c = t.charAt(i);
      if (pendingCr) {
        pendingCr = false;
        if (c === '\n') continue;
      }
      if (quoted) {
        // A quote ends the field, unless the next character (maybe in the next chunk) is a second quote.
        if (c === '"') {
          quoted = false;
          afterQuote = true;
        } else {
          if (c === '\n') line++;
          take(c);
        }
        continue;
      }
      if (c === '"') {
        if (afterQuote) {
          take('"');
          quoted = true;
          afterQuote = false;
        } else if (cellLen === 0) quoted = true;
        else badQuote = true;
        continue;
      }
      if (afterQuote && c !== ',' && c !== '\n' && c !== '\r') badQuote = true;
      afterQuote = false;
      if (c === ',') {
        cells.push(cell);
        cell = '';
        cellLen = 0;
      } else if (c === '\n' || c === '\r') {
        const rec = end();
        line++;
        start = line;
        if (c === '\r') pendingCr = true;
        if (!(rec.cells.length === 1 && rec.cells[0] === '')) yield rec;
      } else take(c);
    }
  }
  if (quoted) badQuote = true;
  if (cell !== '' || cells.length > 0) yield end();
}

/** The records of a CSV file: a header row naming columns (see CSV_COLUMNS), then one item per record; blank lines are skipped. */
export async function* csvRecords(body: AsyncIterable<Buffer | string>): AsyncGenerator<FileRecord> {
  let header: string[] | null = null;
  for await (const rec of csvCells(body)) {
    if (header === null) {
      header = rec.cells.map((c, i) => (i === 0 ? c.replace(/^\ufeff/, '') : c).trim().toLowerCase());
      const known: readonly string[] = CSV_COLUMNS;
      const unknown = header.filter((h) => !known.includes(h));
      const missing = REQUIRED_CSV_COLUMNS.filter((c) => !header?.includes(c));
      const repeated = header.filter((h, i) => header?.indexOf(h) !== i);
      if (unknown.length || missing.length || repeated.length)
        throw new ImportFileError(
          'invalid_header',
          [missing.length ? `missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}` : '', unknown.length ? `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.slice(0, 10).join(', ')}` : '', repeated.length ? `repeated column ${repeated[0]}` : ''].filter(Boolean).join('; ') +
            `. The header must name columns from: ${CSV_COLUMNS.join(', ')}.`,
        );
      continue;
    }
    if (rec.tooLong) yield { line: rec.line, unreadable: `the record is longer than ${MAX_RECORD_CHARS} characters` };
    else if (rec.badQuote) yield { line: rec.line, unreadable: 'a quote in the middle of a field, or a quoted field without its closing quote' };
    else if (rec.cells.length !== header.length) yield { line: rec.line, unreadable: `${rec.cells.length} fields, the header has ${header.length}` };
    else yield { line: rec.line, value: csvRowObject(Object.fromEntries(header.map((h, i) => [h, rec.cells[i] ?? '']))) };
  }
  if (header === null) throw new ImportFileError('invalid_header', `The file is empty: a CSV import starts with a header row naming columns from: ${CSV_COLUMNS.join(', ')}.`);
}
