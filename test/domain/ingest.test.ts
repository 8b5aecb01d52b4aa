// Import and analytics deciders (given / when / then), and the file readers: a CSV or NDJSON file cut into chunks
// anywhere (inside a quoted field, between the two quotes of "", between \r and \n) reads as the same records.
import { expect } from 'chai';
import { given } from './given.ts';
import { type ImportEvent, MAX_RECORDED_ERRORS, importChunkDecider, importDecider } from '../../src/domain/ingest/import.ts';
import { analyticsDecider, analyticsStream } from '../../src/domain/analytics/event.ts';
import { type FileRecord, ImportFileError, csvRecords, ndjsonRecords } from '../../src/workers/ingest/parse.ts';

const ID = '0190c6a2-0000-7000-8000-0000000000b1';
const ORG = '0190c6a2-0000-7000-8000-0000000000f1';
const prepared: ImportEvent = {
  type: 'ImportPrepared',
  data: { import_id: ID, organization_id: ORG, kind: 'sellable_items', format: 'csv', object_key: `imports/${ORG}/${ID}`, size: 100, prepared_at: '2026-01-15T09:00:00.000Z', expires_at: '2026-01-15T10:00:00.000Z' },
};

async function read(parse: (b: AsyncIterable<Buffer>) => AsyncGenerator<FileRecord>, parts: Buffer[]): Promise<FileRecord[]> {
  async function* body() {
    yield* parts;
  }
  const out: FileRecord[] = [];
  for await (const r of parse(body())) out.push(r);
  return out;
}

describe('import decider', () => {
  it('commits an upload of the declared size before it expires, once', () => {
    given(importDecider, [prepared]).when({ type: 'CommitUpload', data: { committed_key: 'committed/imports/o/i', size: 100, now: '2026-01-15T09:30:00.000Z' } }).then([{ type: 'ImportUploadCommitted', data: { size: 100, committed_at: '2026-01-15T09:30:00.000Z', committed_key: 'committed/imports/o/i' } }]);
    given(importDecider, [prepared]).when({ type: 'CommitUpload', data: { committed_key: 'committed/imports/o/i', size: 99, now: '2026-01-15T09:30:00.000Z' } }).thenError('import_size_mismatch');
    given(importDecider, [prepared]).when({ type: 'CommitUpload', data: { committed_key: 'committed/imports/o/i', size: 100, now: '2026-01-15T10:00:01.000Z' } }).thenError('import_expired');
    given(importDecider, []).when({ type: 'CommitUpload', data: { committed_key: 'committed/imports/o/i', size: 100, now: '2026-01-15T09:30:00.000Z' } }).thenError('import_not_found');
    given(importDecider, [prepared, { type: 'ImportUploadCommitted', data: { size: 100, committed_at: '2026-01-15T09:30:00.000Z' } }]).when({ type: 'CommitUpload', data: { committed_key: 'committed/imports/o/i', size: 100, now: '2026-01-15T09:31:00.000Z' } }).thenNothing();
  });

  it('expires only an upload still awaited after its URL expired; completes and fails once', () => {
    given(importDecider, [prepared]).when({ type: 'ExpireImport', data: { now: '2026-01-15T09:59:00.000Z' } }).thenNothing();
    given(importDecider, [prepared]).when({ type: 'ExpireImport', data: { now: '2026-01-15T10:00:01.000Z' } }).then([{ type: 'ImportExpired', data: { expired_at: '2026-01-15T10:00:01.000Z' } }]);
    const done: ImportEvent[] = [prepared, { type: 'ImportUploadCommitted', data: { size: 100, committed_at: 'x' } }, { type: 'ImportCompleted', data: { completed_at: 'y' } }];
    given(importDecider, done).when({ type: 'CompleteImport', data: { now: 'z' } }).thenNothing();
    given(importDecider, done).when({ type: 'FailImport', data: { code: 'invalid_header', message: 'm', now: 'z' } }).thenNothing();
  });

  it('records a chunk once, listing row errors only up to the cap', () => {
    const errors = [{ line: 2, field: 'sku', message: 'required' }, { line: 3, field: null, message: 'not valid JSON' }];
    const data = { import_id: ID, organization_id: ORG, chunk: 4, rows: 2, items: [], errors };
    const events = given(importChunkDecider, []).when({ type: 'RecordChunk', data: { ...data, errors_before: MAX_RECORDED_ERRORS - 1, now: 'n' } }).then((e) => expect(e).to.have.length(1));
    expect(events[0]?.data).to.deep.include({ rows: 2, errors: [errors[0]] });
    given(importChunkDecider, events).when({ type: 'RecordChunk', data: { ...data, errors_before: 0, now: 'n' } }).thenNothing();
  });
});

describe('analytics decider', () => {
  it('takes occurred_at from the last 30 days up to 5 minutes ahead, defaulting to the receipt time; the day stream comes from the event id', () => {
    const base = { event_id: '019bc1f0-0000-7000-8000-000000000001', organization_id: ORG, name: 'x', properties: {}, origin: null, referer: null, now: '2026-01-15T09:00:00.000Z' };
    given(analyticsDecider, []).when({ type: 'RecordAnalyticsEvent', data: { ...base, occurred_at: null } }).then((e) => expect(e[0]?.data.occurred_at).to.equal('2026-01-15T09:00:00.000Z'));
    given(analyticsDecider, []).when({ type: 'RecordAnalyticsEvent', data: { ...base, occurred_at: '2026-01-15T09:06:00.000Z' } }).thenError('occurred_at_out_of_range');
    given(analyticsDecider, []).when({ type: 'RecordAnalyticsEvent', data: { ...base, occurred_at: '2025-12-15T08:59:00.000Z' } }).thenError('occurred_at_out_of_range');
    expect(analyticsStream(base.event_id)).to.equal(`analytics-${new Date(0x019bc1f00000).toISOString().slice(0, 10)}`);
  });
});

describe('import file readers', () => {
  const csv = Buffer.from('sku,title,price_amount,price_currency,stock_quantity,hca_ids\r\nA-1,"Wing, ""left""\r\nprimed",1200,GBP,3,H1|H2\r\n\r\nA-2,Bonnet,99,GBP,1,\r\nA-3,"unterminated,1,GBP,1,\n');
  const expected = [
    { line: 2, value: { sku: 'A-1', title: 'Wing, "left"\r\nprimed', price: { amount: 1200, currency: 'GBP' }, stock_quantity: 3, hca_ids: ['H1', 'H2'] } },
    { line: 5, value: { sku: 'A-2', title: 'Bonnet', price: { amount: 99, currency: 'GBP' }, stock_quantity: 1 } },
    { line: 6, unreadable: 'a quote in the middle of a field, or a quoted field without its closing quote' },
  ];

  it('reads CSV records the same wherever the file is cut into chunks', async () => {
    expect(await read(csvRecords, [csv])).to.deep.equal(expected);
    for (let cut = 1; cut < csv.length; cut++) expect(await read(csvRecords, [csv.subarray(0, cut), csv.subarray(cut)]), `cut at ${cut}`).to.deep.equal(expected);
  });

  it('reads NDJSON lines the same wherever the file is cut, a multi-byte character included', async () => {
    const nd = Buffer.from('{"sku":"é-1"}\n\n not json\r\n{"sku":"B"}');
    const want = [{ line: 1, value: { sku: 'é-1' } }, { line: 3, unreadable: 'not valid JSON' }, { line: 4, value: { sku: 'B' } }];
    for (let cut = 1; cut < nd.length; cut++) expect(await read(ndjsonRecords, [nd.subarray(0, cut), nd.subarray(cut)]), `cut at ${cut}`).to.deep.equal(want);
  });

  it('refuses a CSV without a usable header and a file that is not UTF-8', async () => {
    const code = async (p: Promise<unknown>) => p.then(() => 'read', (e: unknown) => (e instanceof ImportFileError ? e.code : String(e)));
    expect(await code(read(csvRecords, [Buffer.from('')]))).to.equal('invalid_header');
    expect(await code(read(csvRecords, [Buffer.from('sku,title\nA,B\n')]))).to.equal('invalid_header');
    expect(await code(read(ndjsonRecords, [Buffer.from([0x7b, 0xff, 0x7d, 0x0a])]))).to.equal('invalid_encoding');
  });
});
