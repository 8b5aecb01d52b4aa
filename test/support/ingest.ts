// Imports over HTTP as a supplier does them: prepare, PUT the file to the upload URL, commit, let the worker run.
import type { TestService } from './app.ts';
import { ops } from './ops.ts';

/** Who calls: a session token (core API) or integration headers (integrations API). */
export type Caller = { token: string } | { headers: Record<string, string> };

/** Calls an ingest operation on the surface of the caller. */
export function ingestCall<Id extends 'async-imports.prepare' | 'async-imports.commit' | 'async-imports.get' | 'sellable-items.list'>(svc: TestService, caller: Caller, id: Id, body: Parameters<typeof svc.call<(typeof ops)[Id]>>[1]) {
  return 'token' in caller ? svc.call(ops[id], body, caller.token) : svc.callIntegration(ops[id], body, caller.headers);
}

/** Prepares an import of `content` and uploads it; returns the import id (not committed). */
export async function upload(svc: TestService, caller: Caller, format: 'csv' | 'ndjson', content: string | Buffer, opts: { size?: number } = {}): Promise<string> {
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
  const prep = await ingestCall(svc, caller, 'async-imports.prepare', { kind: 'sellable_items', format, size: opts.size ?? bytes.length });
  if (prep.status !== 200) throw new Error(`prepare answered ${prep.status}: ${JSON.stringify(prep.body)}`);
  const put = await fetch(prep.body.upload_url, { method: prep.body.upload_method, headers: prep.body.upload_headers, body: bytes });
  if (put.status >= 300) throw new Error(`upload answered ${put.status}: ${await put.text()}`);
  return prep.body.id;
}

/** Uploads, commits, runs one worker pass, and returns the import as async-imports.get shows it. */
export async function importFile(svc: TestService, caller: Caller, format: 'csv' | 'ndjson', content: string | Buffer) {
  const id = await upload(svc, caller, format, content);
  const commit = await ingestCall(svc, caller, 'async-imports.commit', { id });
  if (commit.status !== 200) throw new Error(`commit answered ${commit.status}: ${JSON.stringify(commit.body)}`);
  await svc.app.workers.runOnce();
  return ingestCall(svc, caller, 'async-imports.get', { id, limit: 200 });
}

/** Every sellable item of the caller, paging through the list. */
export async function allItems(svc: TestService, caller: Caller) {
  const out = [];
  let cursor: string | undefined;
  do {
    const res = await ingestCall(svc, caller, 'sellable-items.list', { limit: 200, ...(cursor ? { cursor } : {}) });
    if (res.status !== 200) throw new Error(`sellable-items.list answered ${res.status}: ${JSON.stringify(res.body)}`);
    out.push(...res.body.items);
    cursor = res.body.pagination?.cursor;
  } while (cursor);
  return out;
}

/** A CSV of `n` items (SKU-00001 ...) with the header; `bad` maps 1-based item numbers to replacement lines. */
export function itemsCsv(n: number, bad: Record<number, string> = {}, title = (i: number) => `Front wing panel ${i}`): string {
  const lines = ['sku,title,description,price_amount,price_currency,stock_quantity,hca_ids,part_numbers'];
  for (let i = 1; i <= n; i++) lines.push(bad[i] ?? `SKU-${String(i).padStart(5, '0')},"${title(i)}","Fits, with ""clips""",${1000 + i},GBP,${i % 50},HCA-BODY-${i % 7}|HCA-LIGHT-1,PN-${i}`);
  return `${lines.join('\r\n')}\r\n`;
}
