// Waits until every projection has applied everything committed so far (for reads of models a command did not wait for).
import type { TestService } from './app.ts';

/** Resolves once all read models have caught up with the head of the log. */
export async function settle(svc: TestService): Promise<void> {
  const head = await svc.app.store.lastCommittedPosition();
  await svc.app.runner.waitFor(head, svc.app.runner.projections, 30_000);
}
