// A mistake in how the CLI was called: printed as one line, without a stack trace.
export class CliError extends Error {}
