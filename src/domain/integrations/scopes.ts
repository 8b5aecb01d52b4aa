// The scopes an integration can be granted, and what each means in words (consent page, docs).
import { z } from 'zod';

/** A scope of the integrations API. */
export const Scope = z.enum(['repairer', 'supplier']);
/** A scope name. */
export type Scope = z.infer<typeof Scope>;

/** Every scope, in display order. */
export const SCOPES: readonly Scope[] = Scope.options;

/** What a scope lets an app do, as the consent page says it. */
export const SCOPE_WORDS: Record<Scope, string> = {
  repairer: 'Create, update and read repair jobs of your organization (and its repairer sites).',
  supplier: 'Preload vehicle identifiers and send sellable items for your organization.',
};

/** True when `s` names a scope. */
export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}
