// ingest.imports and ingest.sellable-items, given an import's life: counts and listed errors per chunk, failures,
// items kept by (organization, SKU), an identical row changing nothing and a changed row replacing the item.
import { backends } from '../../support/db.ts';
import type { ImportEvent } from '../../../src/domain/ingest/import.ts';
import { ingestImportsProjection } from '../../../src/projections/ingest/imports.ts';
import { ingestSellableItemsProjection, sellableItemId } from '../../../src/projections/ingest/sellable-items.ts';
import { nameId } from '../../../src/ids.ts';
import { on, projectionSpec } from '../spec.ts';

const ID = '0190c6a2-0000-7000-8000-0000000000b1';
const ID2 = '0190c6a2-0000-7000-8000-0000000000b2';
const ORG = '0190c6a2-0000-7000-8000-0000000000f1';
const item = (sku: string, title = 'Wing') => ({ sku, title, description: null, price: { amount: 1000, currency: 'GBP' }, stock_quantity: 2, hca_ids: ['HCA-1'], part_numbers: [] });
const prepared = (id: string): ImportEvent => ({
  type: 'ImportPrepared',
  data: { import_id: id, organization_id: ORG, kind: 'sellable_items', format: 'csv', object_key: `imports/${ORG}/${id}`, size: 100, prepared_at: '2026-01-15T09:00:00.000Z', expires_at: '2026-01-15T10:00:00.000Z' },
});
const chunk = (id: string, k: number, items: ReturnType<typeof item>[], errors: { line: number; field: string | null; message: string }[], rows: number): ImportEvent => ({
  type: 'ImportChunkRecorded',
  data: { import_id: id, organization_id: ORG, chunk: k, rows, items: items.map((it, i) => ({ line: i + 2, item: it })), errors },
});
const baseDoc = {
  id: ID, organization_id: ORG, kind: 'sellable_items', format: 'csv', object_key: `imports/${ORG}/${ID}`, size: 100, status: 'awaiting_upload',
  total: 0, ok: 0, failed: 0, errors_recorded: 0, failure: null, created_at: '2026-01-15T09:00:00.000Z', expires_at: '2026-01-15T10:00:00.000Z', committed_at: null, completed_at: null,
};
const at = (n: number) => new Date(Date.parse('2026-01-15T09:00:00.000Z') + n * 1000).toISOString();

for (const backend of backends()) {
  describe(`ingest projection specs (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('an import moves from awaiting upload through processing to completed, adding up its chunks; listed errors are kept by line', async () => {
      const errors = [{ line: 5, field: 'sku', message: 'required' }, { line: 5, field: 'title', message: 'required' }];
      await spec
        .given(ingestImportsProjection, [
          ...on<ImportEvent>(`import-${ID}`, [prepared(ID), { type: 'ImportUploadCommitted', data: { size: 100, committed_at: '2026-01-15T09:01:00.000Z' } }]),
          ...on<ImportEvent>(`importchunk-${ID}-0`, [chunk(ID, 0, [item('A'), item('B')], errors, 3)]),
          ...on<ImportEvent>(`importchunk-${ID}-1`, [chunk(ID, 1, [item('C')], [], 1)]),
          ...on<ImportEvent>(`import-${ID}`, [{ type: 'ImportCompleted', data: { completed_at: '2026-01-15T09:02:00.000Z' } }]),
        ])
        .then({
          ingest_imports: [{ ...baseDoc, status: 'completed', total: 4, ok: 3, failed: 1, errors_recorded: 2, committed_at: '2026-01-15T09:01:00.000Z', completed_at: '2026-01-15T09:02:00.000Z' }],
          ingest_import_errors: [
            { id: nameId('import-error', `${ID}/5/0`), doc: { import_id: ID, ...errors[0] } },
            { id: nameId('import-error', `${ID}/5/1`), doc: { import_id: ID, ...errors[1] } },
          ].sort((a, b) => a.id.localeCompare(b.id)).map((r) => r.doc),
        });
    });

    it('a file refused as a whole is failed with its reason; an upload that never came is expired', async () => {
      await spec
        .given(ingestImportsProjection, [
          ...on<ImportEvent>(`import-${ID}`, [prepared(ID), { type: 'ImportUploadCommitted', data: { size: 100, committed_at: at(1) } }, { type: 'ImportFailed', data: { code: 'invalid_header', message: 'missing column sku', failed_at: at(2) } }]),
          ...on<ImportEvent>(`import-${ID2}`, [prepared(ID2), { type: 'ImportExpired', data: { expired_at: at(3) } }]),
        ])
        .then({
          ingest_imports: [
            { ...baseDoc, status: 'failed', failure: { code: 'invalid_header', message: 'missing column sku' }, committed_at: at(1), completed_at: at(2) },
            { ...baseDoc, id: ID2, object_key: `imports/${ORG}/${ID2}`, status: 'expired', completed_at: at(3) },
          ],
        });
    });

    it('items are kept per SKU: an identical row changes nothing, a changed row replaces the item and keeps created_at', async () => {
      // Given events are recorded a second apart from SPEC_START: the first chunk at +0 s, the second at +1 s.
      const rows = [
        { id: sellableItemId(ORG, 'A'), doc: { organization_id: ORG, sku: 'A', item: item('A'), import_id: ID, created_at: at(0), updated_at: at(0) } },
        { id: sellableItemId(ORG, 'B'), doc: { organization_id: ORG, sku: 'B', item: item('B', 'Bonnet'), import_id: ID2, created_at: at(0), updated_at: at(1) } },
      ].sort((a, b) => a.id.localeCompare(b.id));
      await spec
        .given(ingestSellableItemsProjection, [
          ...on<ImportEvent>(`importchunk-${ID}-0`, [chunk(ID, 0, [item('A'), item('B')], [], 2)]),
          ...on<ImportEvent>(`importchunk-${ID2}-0`, [chunk(ID2, 0, [item('A'), item('B', 'Bonnet')], [], 2)]),
        ])
        .then({ ingest_sellable_items: rows.map((r) => r.doc) });
    });
  });
}
