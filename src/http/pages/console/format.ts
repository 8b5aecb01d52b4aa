// How the console writes what it shows: money in its currency, instants readable with the UTC value on hover, and
// names (with a link) where the API has ids. Names come from billing.names.list through the page's ConsoleApi, one
// call per page: a page collects the ids it will show, loads them, then writes `names.customer(id)` and the like.
// Where no name exists the WHOLE id is shown: ids are UUID v7, so a prefix is a shared timestamp and identifies nothing.
import type { z } from 'zod';
import { type SafeHtml, html } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import type { NamesListResponse } from '../../../contract/schemas/billing-names.ts';
import { displayMinorUnits } from '../../../iso4217.ts';
import type { ConsoleApi } from './api.ts';

/** Money in minor units as "GBP 1,386.50" (ISO code, grouped, the currency's ISO 4217 digits). Display only. */
export function money(minor: number, currency: string): string {
  const digits = displayMinorUnits(currency);
  if (digits === null) return `${currency} ${minor.toLocaleString('en-GB')} (minor units)`;
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const whole = Math.trunc(abs / 10 ** digits).toLocaleString('en-GB');
  const cents = digits ? `.${String(abs % 10 ** digits).padStart(digits, '0')}` : '';
  return `${sign}${currency} ${whole}${cents}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "2026-03-10" as "10 Mar 2026". */
export function dayText(date: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  return m ? `${Number(m[3])} ${MONTHS[Number(m[2]) - 1] ?? m[2]} ${m[1]}` : date;
}

/**
 * An instant as "10 Mar 2026, 09:01 UTC" with the exact UTC value on hover; console.js rewrites the text into the
 * reader's own time zone (`data-local`), so without scripts the page still says UTC plainly.
 */
export function instant(iso: string | null | undefined): SafeHtml {
  if (!iso) return html`—`;
  const utc = `${iso.replace('T', ' ').replace(/\.\d+/, '').replace(/Z$/, '')} UTC`;
  return html`<time datetime="${iso}" title="${utc}" data-local>${dayText(iso)}, ${iso.slice(11, 16)} UTC</time>`;
}

/** A calendar date (no time of day) as "10 Mar 2026" in a <time> element. */
export function day(date: string | null | undefined): SafeHtml {
  if (!date) return html`—`;
  return html`<time datetime="${date}" title="${date}">${dayText(date)}</time>`;
}

/** An id that has no name: written whole, in code type. */
export function wholeId(id: string): SafeHtml {
  return html`<code class="id">${id}</code>`;
}

/** Who did something, as the API reports an actor (history, notes, configuration). */
export interface ActorRef {
  type: 'user' | 'staff' | 'integration' | 'system';
  id: string | null;
  name?: string | null;
  email?: string | null;
}

type Names = z.output<typeof NamesListResponse>;
type CustomerName = Names['customers'][number];

/** The ids a page will show, by kind. */
export interface IdsWanted {
  customers?: (string | null | undefined)[];
  organizations?: (string | null | undefined)[];
  users?: (string | null | undefined)[];
  subscriptions?: (string | null | undefined)[];
  products?: (string | null | undefined)[];
}

const UUIDISH = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const clean = (ids: (string | null | undefined)[] | undefined) => [...new Set((ids ?? []).filter((x): x is string => typeof x === 'string' && UUIDISH.test(x)))].slice(0, 200);

/** The names of one page's ids, and how each is written (a link to its console page where it has one). */
export class NameBook {
  private readonly customers = new Map<string, CustomerName>();
  private readonly orgs = new Map<string, Names['organizations'][number]>();
  private readonly users = new Map<string, Names['users'][number]>();
  private readonly subs = new Map<string, Names['subscriptions'][number]>();
  private readonly products = new Map<string, Names['products'][number]>();
  /** Customer names shared by more than one customer on the page (those get their organization written beside them). */
  private readonly shared = new Set<string>();

  constructor(names?: Names) {
    if (!names) return;
    for (const c of names.customers) this.customers.set(c.id, c);
    for (const o of names.organizations) this.orgs.set(o.id, o);
    for (const u of names.users) this.users.set(u.id, u);
    for (const s of names.subscriptions) this.subs.set(s.id, s);
    for (const p of names.products) this.products.set(p.id, p);
    const seen = new Map<string, number>();
    for (const c of names.customers) seen.set(c.name.toLowerCase(), (seen.get(c.name.toLowerCase()) ?? 0) + 1);
    for (const [n, k] of seen) if (k > 1) this.shared.add(n);
  }

  /** Loads the names of `ids` (one call; a failed call leaves whole ids on the page, never a broken one). */
  static async load(api: ConsoleApi, ids: IdsWanted): Promise<NameBook> {
    const req = {
      customers: clean(ids.customers), organizations: clean(ids.organizations), users: clean(ids.users),
      subscriptions: clean(ids.subscriptions), products: clean(ids.products),
    };
    if (Object.values(req).every((v) => v.length === 0)) return new NameBook();
    const r = await api.call(ops['billing.names.list'], req);
    return new NameBook(r.ok ? r.body : undefined);
  }

  /** The customer's name ("" when unknown). */
  customerName(id: string): string {
    return this.customers.get(id)?.name ?? '';
  }

  /** Whether the customer's access is suspended for non-payment. */
  suspended(id: string): boolean {
    return this.customers.get(id)?.suspended ?? false;
  }

  /** A customer as a link with its name; its organization's name beside it when another customer shares the name, or `withOrg`. */
  customer(id: string, withOrg = false): SafeHtml {
    const c = this.customers.get(id);
    if (!c) return html`<a href="/console/customers/${id}">${wholeId(id)}</a>`;
    const org = c.organization_name && (withOrg || this.shared.has(c.name.toLowerCase())) ? html` <span class="muted">(${c.organization_name})</span>` : '';
    return html`<a href="/console/customers/${id}" title="${c.organization_name ? `Organization: ${c.organization_name}` : c.email}">${c.name}</a>${org}`;
  }

  /** An organization's name, linked to its customer where it has one. */
  organization(id: string): SafeHtml {
    const o = this.orgs.get(id);
    if (!o) return wholeId(id);
    return o.customer_id ? html`<a href="/console/customers/${o.customer_id}">${o.name}</a>` : html`${o.name}`;
  }

  /** A subscription: "Subscription of <organization>", linked to its configuration page. */
  subscription(id: string): SafeHtml {
    const s = this.subs.get(id);
    const label = s?.organization_name ? html`Subscription of ${s.organization_name}` : wholeId(id);
    return html`<a href="/console/configuration?subscription_id=${id}">${label}</a>${s && s.status !== 'active' ? html` <span class="muted">(${s.status})</span>` : ''}`;
  }

  /** A product's name (whole id when unknown). */
  product(id: string): SafeHtml {
    const p = this.products.get(id);
    return p ? html`${p.name}` : wholeId(id);
  }

  /** Who did something: the person's name (email on hover), "the system", or the integration's whole id. */
  actor(a: ActorRef): SafeHtml {
    return html`${actorName(a, this.users.get(a.id ?? ''))}`;
  }

  /** The plain-text name of an actor, for sentences. */
  actorText(a: ActorRef): string {
    return actorText(a, this.users.get(a.id ?? ''));
  }
}

function actorText(a: ActorRef, known?: { name: string; email: string }): string {
  const name = a.name ?? known?.name ?? null;
  if (a.type === 'system') return 'the system';
  if (name) return name;
  if (a.email ?? known?.email) return String(a.email ?? known?.email);
  return a.type === 'integration' ? `integration ${a.id ?? ''}`.trim() : `${a.type === 'staff' ? 'staff member' : 'user'} ${a.id ?? ''}`.trim();
}

function actorName(a: ActorRef, known?: { name: string; email: string }): SafeHtml {
  const text = actorText(a, known);
  const email = a.email ?? known?.email ?? null;
  return email && email !== text ? html`<span title="${email}">${text}</span>` : html`${text}`;
}

/** A customer's state as a badge a clerk reads: "suspended" (access cut for non-payment) before "active". */
export function customerBadge(status: 'active' | 'removed', suspended: boolean): SafeHtml {
  const s = status === 'active' && suspended ? 'suspended' : status;
  return html`<span class="badge badge-${s}">${s}</span>`;
}
