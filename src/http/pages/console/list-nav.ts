// Lists in the console (issue 28 §6): the API's cursors only go forward, so the page keeps the cursors it came through
// (`back`, in its URL) to offer Previous as well as Next, and says which rows of how many it shows.
import { type SafeHtml, html } from '../html.ts';
import { qs } from './layout.ts';

/** Most earlier pages a list URL remembers (its length stays small). */
const MAX_TRAIL = 40;

/** Where a list stands: the cursor of this page (none: the first) and those of the pages before it. */
export interface ListPlace {
  cursor?: string;
  back: string[];
}

/** Reads `cursor` and `back` from the query string (a cursor is the API's to judge: a forged one is its 400). */
export function placeOf(query: Record<string, unknown>): ListPlace {
  const cursor = typeof query.cursor === 'string' && query.cursor ? query.cursor.slice(0, 500) : undefined;
  const back = typeof query.back === 'string' && cursor ? query.back.split(',').filter((c) => /^[\w-]{1,500}$/.test(c)).slice(-MAX_TRAIL) : [];
  return { cursor, back };
}

/** "Showing 51–100 of 312", then Previous and Next links that keep the list's filters and sort. */
export function pager(base: string, params: Record<string, string | undefined>, place: ListPlace, shown: number, limit: number, next: string | null | undefined, total?: number): SafeHtml {
  const index = place.cursor ? place.back.length + 1 : 0;
  const from = shown ? index * limit + 1 : 0;
  const to = index * limit + shown;
  const prevCursor = place.back.at(-1);
  const prev = place.cursor ? `${base}${qs({ ...params, cursor: prevCursor, back: prevCursor ? place.back.slice(0, -1).join(',') : undefined })}` : null;
  const nextHref = next ? `${base}${qs({ ...params, cursor: next, back: place.cursor ? [...place.back, place.cursor].slice(-MAX_TRAIL).join(',') : undefined })}` : null;
  const count = total === undefined ? `Showing ${from}–${to}` : total === 0 ? 'None' : `Showing ${from}–${to} of ${total}`;
  return html`<nav class="pager" aria-label="Pages"><span class="muted" role="status">${count}</span>
${prev ? html`<a href="${prev}" rel="prev">Previous page</a>` : html`<span class="muted" aria-disabled="true">Previous page</span>`}
${nextHref ? html`<a href="${nextHref}" rel="next">Next page</a>` : html`<span class="muted" aria-disabled="true">Next page</span>`}</nav>`;
}

/** A `<select>` of the sorts a list offers, in words, with the current one selected. */
export function sortSelect(id: string, sorts: readonly (readonly [string, string])[], current: string): SafeHtml {
  return html`<select id="${id}" name="sort">${sorts.map(([value, label]) => html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`)}</select>`;
}

/** Rows a page shows: `?limit=` (1-200, as the API takes), else `fallback`. */
export function pageSizeOf(query: Record<string, unknown>, fallback: number): number {
  const n = typeof query.limit === 'string' && /^\d{1,3}$/.test(query.limit) ? Number(query.limit) : fallback;
  return n >= 1 && n <= 200 ? n : fallback;
}
