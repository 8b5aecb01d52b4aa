// The operations the CLI's command files call, found in the running service's registry by id: describing the
// commands (`--help`, `--version`) must not load the service's operations and everything behind them, and the
// registry holds the very objects the pipeline accepts (a second copy of the module, loaded apart, would not be).
import type { ops } from '../areas/operations.ts';
import type { Registry } from '../contract/registry.ts';

type Operations = typeof ops;

/** The operation `id` of the running service (`app.registry`). */
export function operationOf<K extends keyof Operations>(app: { registry: Registry }, id: K): Operations[K] {
  const op = app.registry.get('core', id) ?? app.registry.get('internal', id);
  if (!op) throw new Error(`${id} is not an operation of this service`);
  return op as Operations[K];
}
