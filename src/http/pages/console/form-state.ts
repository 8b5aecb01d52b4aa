// A refused form comes back as it was typed, with what is wrong written next to each field in plain words (issue 28 §5).
import type { ApiProblem } from './api.ts';

/** A refused form: which form it was (pages with several forms fill only that one again), what was typed, and each field's problem. */
export interface Refusal {
  form: string;
  values: Record<string, string>;
  errors: Record<string, string>;
}

/** The value to show in a field: what was typed when this form was refused, else `fallback`. */
export function typed(refusal: Refusal | undefined, form: string, name: string, fallback = ''): string {
  return refusal?.form === form ? (refusal.values[name] ?? fallback) : fallback;
}

/** The problem of a field of this form, if it was refused. */
export function errorOf(refusal: Refusal | undefined, form: string, name: string): string | undefined {
  return refusal?.form === form ? refusal.errors[name] : undefined;
}

/**
 * The refusal of `form`: the values typed (never the CSRF token or idempotency key) and the problem's issues by form
 * field. `fields` maps an API path (`reference`, `billing_address.city`) to the form's field name where they differ;
 * an issue of a path the form has no field for stays in the problem box only.
 */
export function refusalOf(form: string, values: Record<string, string>, problem: ApiProblem, fields: Record<string, string> = {}): Refusal {
  const errors: Record<string, string> = {};
  for (const i of problem.issues) {
    const name = fields[i.path] ?? i.path;
    if (name && !errors[name]) errors[name] = plainMessage(i.message);
  }
  const kept = Object.fromEntries(Object.entries(values).filter(([k]) => k !== 'csrf' && k !== 'idem'));
  return { form, values: kept, errors };
}

/** A validation message as a clerk reads it: zod's wording ("Too small: expected string to have >=1 characters") turned into words. */
export function plainMessage(message: string): string {
  const m = message.trim();
  let x: RegExpExecArray | null;
  if (/^Too small: expected string to have >=1 characters?$/.test(m) || /received undefined$/.test(m) || m === 'required') return 'Fill this in.';
  if ((x = /^Too small: expected string to have >=(\d+) characters$/.exec(m))) return `Use at least ${x[1]} characters.`;
  if ((x = /^Too big: expected string to have <=(\d+) characters$/.exec(m))) return `Use at most ${x[1]} characters.`;
  if ((x = /^Too small: expected number to be >0$/.exec(m))) return 'Must be more than 0.';
  if ((x = /^Too small: expected number to be >=(-?[\d.e+]+)$/.exec(m))) return `Must be at least ${x[1]}.`;
  if ((x = /^Too big: expected number to be <=(-?[\d.e+]+)$/.exec(m))) return `Must be at most ${x[1]}.`;
  if (m === 'Invalid email address') return 'This is not an email address (like name@example.com).';
  if (/^Invalid input: expected int/.test(m)) return 'Enter a whole number.';
  if (/^Invalid input: expected number/.test(m)) return 'Enter a number.';
  if (/^Invalid ISO date/.test(m)) return 'Enter a date like 2026-03-31.';
  if (/^Invalid option/.test(m)) return 'Choose one of the options listed.';
  if (m === 'must be a 3-letter upper-case ISO 4217 code' || m === 'not a current ISO 4217 currency with minor units') return 'Not a currency code: use three letters, like GBP or EUR.';
  if (m === 'must be an ISO 3166-1 alpha-2 code') return 'Not a country code: use two letters, like GB or FR.';
  if (/^Invalid string: must match pattern/.test(m)) return 'This is not in the expected form.';
  return `${m.charAt(0).toUpperCase()}${m.slice(1)}${/[.!?]$/.test(m) ? '' : '.'}`;
}
