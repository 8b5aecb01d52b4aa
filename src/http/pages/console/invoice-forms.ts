// Form pieces of invoices: the line editor (typed in major units, sent in minor units) and reading it back.
import type { ApiProblem } from './api.ts';
import { moneyInput, parseMoney } from './layout.ts';
import { type SafeHtml, html } from '../html.ts';

/** Most line rows one form carries. */
const MAX_ROWS = 200;

/** A line as the editor shows it. */
export interface EditorLine {
  description: string;
  quantity: number;
  unit_amount: number;
}

/** The line editor: one row per line plus `blank` empty rows; the console's script adds more rows on demand. */
export function lineEditor(lines: EditorLine[], currency: string, blank = 3): SafeHtml {
  const rows = [...lines, ...Array.from({ length: blank }, () => null)].map((l, i) => lineRow(i, l, currency));
  return html`<fieldset class="lines"><legend>Lines (prices in ${currency})</legend>
<div class="scroll"><table class="editor"><thead><tr><th scope="col">Description</th><th scope="col">Quantity</th><th scope="col">Unit price</th></tr></thead>
<tbody data-line-rows>${rows}</tbody></table></div>
<button type="button" class="secondary" data-add-line hidden>Add a line</button>
<p class="muted">Empty rows are ignored. Amounts like 1250.00.</p></fieldset>`;
}

function lineRow(i: number, l: EditorLine | null, currency: string): SafeHtml {
  return html`<tr><td><label class="sr" for="line${i}_description">Line ${i + 1} description</label><input id="line${i}_description" name="line${i}_description" value="${l?.description ?? ''}" maxlength="500"></td>
<td><label class="sr" for="line${i}_quantity">Line ${i + 1} quantity</label><input id="line${i}_quantity" name="line${i}_quantity" inputmode="numeric" value="${l ? l.quantity : ''}" size="5"></td>
<td><label class="sr" for="line${i}_unit_amount">Line ${i + 1} unit price</label><input id="line${i}_unit_amount" name="line${i}_unit_amount" inputmode="decimal" value="${l ? moneyInput(l.unit_amount, currency) : ''}" size="10"></td></tr>`;
}

/** Reads the editor's rows into API lines; a row that is not a line is reported as the API would (400 with issues). */
export function readLines(form: Record<string, string>, currency: string): { lines: EditorLine[] } | { problem: ApiProblem } {
  const lines: EditorLine[] = [];
  const issues: ApiProblem['issues'] = [];
  for (let i = 0; i < MAX_ROWS; i++) {
    const description = (form[`line${i}_description`] ?? '').trim();
    const q = (form[`line${i}_quantity`] ?? '').trim();
    const u = (form[`line${i}_unit_amount`] ?? '').trim();
    if (!description && !q && !u) continue;
    const quantity = q === '' ? 1 : /^\d{1,7}$/.test(q) ? Number(q) : NaN;
    const unit = parseMoney(u, currency);
    if (!description) issues.push({ path: `line ${i + 1}`, message: 'needs a description' });
    if (!Number.isInteger(quantity) || quantity < 1) issues.push({ path: `line ${i + 1}`, message: 'quantity must be a whole number of at least 1' });
    if (unit === null) issues.push({ path: `line ${i + 1}`, message: `unit price must be an amount like 12.50 in ${currency}` });
    if (description && unit !== null && quantity >= 1) lines.push({ description, quantity, unit_amount: unit });
  }
  if (issues.length) return { problem: formProblem('Some lines are not complete.', issues) };
  return { lines };
}

/** A problem found in the form before anything was sent (nothing was written). */
export function formProblem(message: string, issues: ApiProblem['issues'] = []): ApiProblem {
  return { status: 400, code: 'invalid_form', message, issues, requestId: null };
}
