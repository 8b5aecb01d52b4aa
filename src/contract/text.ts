// Text every field may hold: well-formed Unicode (no lone UTF-16 surrogate) and no NUL, which Postgres text and jsonb refuse.

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a request string cannot be stored, or null when it can. */
export function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'Text may not contain NUL (\\u0000) characters.';
  if (LONE_SURROGATE.test(value)) return 'Text must be well-formed Unicode: it contains a lone UTF-16 surrogate.';
  return null;
}
