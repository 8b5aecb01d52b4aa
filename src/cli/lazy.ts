// What the CLI's command files use only once a command runs, loaded then: describing the commands (`--help`,
// `--version`) must not load the service's operations and everything behind them.
import type { ops } from '../areas/operations.ts';

/** The service's operations (every area's), by id. */
export async function operations(): Promise<typeof ops> {
  return (await import('../areas/operations.ts')).ops;
}
