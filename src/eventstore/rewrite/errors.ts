// Why the log rewrite or its backup refused: one line for the operator, never a stack trace.

/** A refusal of `core-server log ...`, with what to do about it. */
export class LogRewriteError extends Error {}
