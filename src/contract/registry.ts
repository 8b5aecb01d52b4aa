// The operation registry: every operation of every surface (the internal one is called only in process), collected once. A duplicate id fails at start-up.
import type { Operation, Surface } from './operation.ts';

/** Operations by surface and id. */
export class Registry {
  private readonly bySurface = { core: new Map<string, Operation>(), integrations: new Map<string, Operation>(), internal: new Map<string, Operation>() };

  constructor(operations: Operation[]) {
    for (const op of operations) {
      const map = this.bySurface[op.surface];
      if (map.has(op.id)) throw new Error(`operation ${op.id} is declared twice`);
      map.set(op.id, op);
    }
  }

  get(surface: Surface, id: string): Operation | undefined {
    return this.bySurface[surface].get(id);
  }

  list(surface: Surface): Operation[] {
    return [...this.bySurface[surface].values()].sort((a, b) => a.id.localeCompare(b.id));
  }
}
