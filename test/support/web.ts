// A browser without a browser: fetch with a cookie jar and manual redirects, for the app pages over plain HTTP.

/** One page answer. */
export interface PageReply {
  status: number;
  headers: Headers;
  location: string | null;
  html: string;
  setCookies: string[];
}

/** Keeps cookies like a browser (by name; attributes are not interpreted except Max-Age=0). */
export class WebClient {
  readonly cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  private cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  private async reply(res: Response): Promise<PageReply> {
    const setCookies = res.headers.getSetCookie();
    for (const c of setCookies) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      if (/max-age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(i + 1));
    }
    return { status: res.status, headers: res.headers, location: res.headers.get('location'), html: await res.text(), setCookies };
  }

  /** GET a path or absolute URL. */
  async get(path: string): Promise<PageReply> {
    return this.reply(await fetch(new URL(path, this.base), { headers: this.cookieHeader(), redirect: 'manual' }));
  }

  /** POST an HTML form. */
  async post(path: string, fields: Record<string, string>): Promise<PageReply> {
    return this.reply(await fetch(new URL(path, this.base), { method: 'POST', headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields), redirect: 'manual' }));
  }

  /** Follows same-origin redirects from `first` (at most 10) and returns the last answer. */
  async follow(first: PageReply): Promise<PageReply> {
    let r = first;
    for (let i = 0; i < 10 && r.location && [301, 302, 303, 307, 308].includes(r.status); i++) {
      const next = new URL(r.location, this.base);
      if (next.origin !== new URL(this.base).origin) break;
      r = await this.get(next.toString());
    }
    return r;
  }
}

/** The hidden fields of the first form on a page (or of the form whose action is `action`). */
export function hiddenFields(html: string, action?: string): Record<string, string> {
  let scope = html;
  if (action) {
    const i = html.indexOf(`action="${action}"`);
    scope = i >= 0 ? html.slice(i, html.indexOf('</form>', i)) : '';
  }
  const out: Record<string, string> = {};
  for (const m of scope.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) out[m[1]!] = unescapeHtml(m[2]!);
  return out;
}

/** Reverses the page's HTML escaping. */
export function unescapeHtml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
}

/** Signs in through the login form; returns the final answer after redirects. */
export async function logIn(web: WebClient, email: string, password: string, returnTo?: string): Promise<PageReply> {
  const form = await web.get(returnTo ? `/auth/login?return_to=${encodeURIComponent(returnTo)}` : '/auth/login');
  return web.post('/auth/login', { ...hiddenFields(form.html, '/auth/login'), email, password });
}
