// Safe HTML by construction: every server-rendered page is built with the `html` tagged template, which escapes every
// value it is given unless that value is already SafeHtml. SafeHtml is made only here (by `html`, `join` and `raw`), so
// a string can never reach a page as markup: page, layout and table helpers take SafeHtml, and a string given to them
// or to `html` is text.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// Both quotes are escaped, so a value is safe in element content and in a quoted attribute ("…" or '…') alike.
function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/**
 * Markup that is safe to send as it is. Only this module makes one (the constructor is private and the class is
 * exported as a type only), so nothing else can pass a string off as markup.
 */
class SafeHtml {
  readonly #markup: string;

  private constructor(markup: string) {
    this.#markup = markup;
  }

  /** Trusts `markup` as it is: for this module's own functions only. */
  static trust(markup: string): SafeHtml {
    return new SafeHtml(markup);
  }

  /** The markup of `h`. */
  static markupOf(h: SafeHtml): string {
    return h.#markup;
  }
}

export type { SafeHtml };

/** What `html` takes: markup as it is; text and numbers escaped; null and undefined as nothing; arrays joined. */
export type Html = SafeHtml | string | number | null | undefined | readonly Html[];

function render(value: Html): string {
  if (value === null || value === undefined) return '';
  if (value instanceof SafeHtml) return SafeHtml.markupOf(value);
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(render).join('');
  // Only reachable past the type checker: an object that is not SafeHtml is neither text nor markup.
  throw new TypeError('html: a value is neither SafeHtml, text, a number nor a list of them');
}

/** The tagged template of every page: the literal parts are markup, every `${value}` is escaped unless it is SafeHtml. */
export function html(strings: TemplateStringsArray, ...values: Html[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return SafeHtml.trust(out);
}

/** The items, each escaped as in `html`, with `separator` between them. */
export function join(items: readonly Html[], separator: Html): SafeHtml {
  return SafeHtml.trust(items.map(render).join(render(separator)));
}

/**
 * The markup to send. SafeHtml has no toString of its own, so a page mixed into a plain string shows as
 * "[object Object]" (and the lint's no-base-to-string rule refuses it) instead of passing as text.
 */
export function markup(h: SafeHtml): string {
  return SafeHtml.markupOf(h);
}

/**
 * `value` as JSON in a `<script type="application/json">` element (data for the page's own script). A script's text is
 * not entity-decoded, so it is not HTML-escaped: `<`, `>` and `&` are written as JSON's \u escapes instead, so nothing
 * in it can end the element or start markup.
 */
export function jsonScript(id: string, value: unknown): SafeHtml {
  const json = JSON.stringify(value).replaceAll('<', '\\u003c').replaceAll('>', '\\u003e').replaceAll('&', '\\u0026');
  return html`<script type="application/json" id="${id}">${SafeHtml.trust(json)}</script>`;
}
