// Webhook delivery worker: for each enabled endpoint, sends its queue (the outbox the projection engine fills from the log,
// queries/billing/webhook-outbox.ts) in log order, one delivery at a time, recording every attempt. Each endpoint is its own
// task: a pass starts the endpoints that are idle and due, waits for them up to WEBHOOK_PASS_WAIT_MS, and leaves a slow one
// running in the background (the next pass skips it), so a slow or failing endpoint never holds up another.
// A failure backs off exponentially (30 s, doubling, at most 12 h) on the injected clock; failing for 3 days disables the
// endpoint (billing.webhook-endpoints.disable-failing), which puts it on the Needs attention list.
import { setTimeout as delay } from 'node:timers/promises';
import { type Services, systemAuth } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { newId } from '../../ids.ts';
import { causedBy } from '../../pipeline/causation.ts';
import { deliveryIdOf } from '../../domain/billing/webhook-endpoint.ts';
import { webhookEndpointsDisableFailing } from '../../commands/billing/webhook-endpoints.ts';
import { webhookEndpoints } from '../../commands/billing/handlers.ts';
import { type DeliveryTarget, type QueuedDelivery, deliveryTargets, outboxTop, queuedAfter } from '../../queries/billing/webhook-outbox.ts';
import { advance, backOff, claim, pruneDeliveries, recordAttempt, release } from './webhook-ledger.ts';
import { signedHeaders } from './webhook-signature.ts';

/** An endpoint failing this long is disabled. */
export const FAILING_LIMIT_MS = 3 * 24 * 3600_000;
const FIRST_RETRY_MS = 30_000;
const LONGEST_RETRY_MS = 12 * 3600_000;
/** One task sends at most this many deliveries (or for this long) before giving the next pass its turn. */
const TASK_DELIVERIES = 500;
const TASK_BUDGET_MS = 10_000;
const EXCERPT = 500;
/** How often a process deletes deliveries past WEBHOOK_RETENTION_DAYS (on the injected clock). */
const PRUNE_EVERY_MS = 3600_000;

/** What one pass did. */
export interface WebhookPassResult {
  delivered: number;
  failed: number;
  disabled: string[];
  /** Endpoints whose task was still running when the pass stopped waiting. */
  still_running: number;
  /** Delivered deliveries deleted because they were older than WEBHOOK_RETENTION_DAYS (the first pass of each hour looks). */
  pruned: number;
}

interface Outcome {
  ok: boolean;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string;
}

/** Runs at most `n` of the worker's database calls at once: with many endpoints the deliveries' reads and writes queue here, not in
 * front of commands in the pool (or PGlite's one connection). HTTP calls are not limited: each endpoint waits on its own. */
class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly n: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/** The worker's database calls at once (per process). */
const DB_CALLS = 2;

/** One process's delivery state: the endpoints in flight, and those found with nothing to send (by what the outbox held then). */
class Dispatcher {
  private readonly db = new Limiter(DB_CALLS);
  private readonly owner = newId();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly idleAt = new Map<string, string>();
  private readonly stopping = new AbortController();
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly services: Services) {}

  async pass(): Promise<WebhookPassResult> {
    const result: WebhookPassResult = { delivered: 0, failed: 0, disabled: [], still_running: 0, pruned: 0 };
    const { knex, clock, config } = this.services;
    // The record of every attempt would otherwise grow for ever (an attempt per event per endpoint).
    const now = clock.now().getTime();
    if (now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = now;
      result.pruned = await this.db.run(() => pruneDeliveries(knex, new Date(now - config.webhooks.retentionMs)));
      if (result.pruned > 0) this.services.logger.info({ pruned: result.pruned, retention_days: config.webhooks.retentionMs / 86_400_000 }, 'deleted delivered webhook deliveries past their retention');
    }
    const top = await outboxTop(knex);
    for (const t of await deliveryTargets(knex)) {
      if (this.inFlight.has(t.endpoint_id) || this.idleAt.get(t.endpoint_id) === idleKey(t, top)) continue;
      const task = this.deliver(t, top, result)
        .catch((err: unknown) => this.services.logger.error({ err, endpoint: t.endpoint_id }, 'webhook delivery task failed'))
        .finally(() => this.inFlight.delete(t.endpoint_id));
      this.inFlight.set(t.endpoint_id, task);
    }
    // Waits for every task in flight (those of earlier passes too), up to the pass's wait: the rest go on in the background.
    await Promise.race([Promise.all([...this.inFlight.values()]), delay(this.services.config.webhooks.passWaitMs, undefined, { ref: false })]);
    return { ...result, disabled: [...result.disabled], still_running: this.inFlight.size };
  }

  /** Sends one endpoint's queue until it is empty, fails, or the task's budget is spent. */
  private async deliver(t: DeliveryTarget, top: string, result: WebhookPassResult): Promise<void> {
    const { knex, clock } = this.services;
    const cursor = await this.db.run(() => claim(knex, t.endpoint_id, t.from_position, this.owner));
    if (!cursor) return;
    try {
      if (cursor.next_attempt_at && cursor.next_attempt_at > clock.now()) return;
      // A failure from before the endpoint was enabled again does not count towards the 3 days.
      let failingSince = cursor.failing_since && cursor.failing_since.toISOString() >= t.enabled_at ? cursor.failing_since : null;
      let after = cursor.position;
      let sent = 0;
      const began = performance.now();
      while (sent < TASK_DELIVERIES && performance.now() - began < TASK_BUDGET_MS) {
        const items = await this.db.run(() => queuedAfter(knex, t, after, 50));
        if (items.length === 0) {
          this.idleAt.set(t.endpoint_id, idleKey(t, top));
          return;
        }
        for (const item of items) {
          const outcome = await this.send(t, item);
          if (!outcome) return; // stopping mid-send: nothing recorded, the item goes again after a restart
          const at = clock.now();
          const base = { delivery_id: item.redelivery_id ?? deliveryIdOf(t.endpoint_id, item.event_id), endpoint_id: t.endpoint_id, event_id: item.event_id, event_type: item.type, redelivery: item.redelivery_id !== null, attempted_at: at, ...outcome };
          if (outcome.ok) {
            await this.db.run(async () => {
              await recordAttempt(knex, { ...base, status: 'delivered', next_attempt_at: null });
              await advance(knex, t.endpoint_id, item.position, this.owner);
            });
            this.services.metrics.deliveries.inc({ channel: 'webhook', result: 'delivered' });
            result.delivered++;
            after = item.position;
            sent++;
            continue;
          }
          this.services.metrics.deliveries.inc({ channel: 'webhook', result: 'failed' });
          result.failed++;
          failingSince ??= at;
          const failingFor = at.getTime() - failingSince.getTime();
          if (failingFor >= FAILING_LIMIT_MS) {
            const since = failingSince;
            await this.db.run(async () => {
              await recordAttempt(knex, { ...base, status: 'failing', next_attempt_at: null });
              await backOff(knex, t.endpoint_id, since, null);
            });
            await this.disable(t, outcome);
            result.disabled.push(t.endpoint_id);
            return;
          }
          const next = new Date(at.getTime() + Math.min(LONGEST_RETRY_MS, Math.max(FIRST_RETRY_MS, failingFor)));
          const since = failingSince;
          await this.db.run(async () => {
            await recordAttempt(knex, { ...base, status: 'failing', next_attempt_at: next });
            await backOff(knex, t.endpoint_id, since, next);
          });
          return;
        }
      }
    } finally {
      await this.db.run(() => release(knex, t.endpoint_id, this.owner));
    }
  }

  /** POSTs one delivery; null when the worker is stopping. Redirects are not followed (a 3xx is a failure). */
  private async send(t: DeliveryTarget, item: QueuedDelivery): Promise<Outcome | null> {
    const body = JSON.stringify(item.payload);
    const headers = signedHeaders(item.event_id, Math.floor(Date.now() / 1000), body, t.secrets, this.services.clock.now());
    const began = performance.now();
    try {
      const res = await fetch(t.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'core-server-webhooks', ...headers },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([this.stopping.signal, AbortSignal.timeout(this.services.config.webhooks.timeoutMs)]),
      });
      const text = await res.text();
      return { ok: res.status >= 200 && res.status < 300, status_code: res.status, latency_ms: Math.round(performance.now() - began), response_excerpt: text.slice(0, EXCERPT) };
    } catch (err) {
      if (this.stopping.signal.aborted) return null;
      const why = err instanceof Error ? (err.name === 'TimeoutError' ? `no answer within ${this.services.config.webhooks.timeoutMs} ms` : `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}`) : String(err);
      return { ok: false, status_code: null, latency_ms: Math.round(performance.now() - began), response_excerpt: why.slice(0, EXCERPT) };
    }
  }

  private async disable(t: DeliveryTarget, last: Outcome): Promise<void> {
    const detail = `Every delivery failed for 3 days; the last answer: ${last.status_code ?? 'none'} ${last.response_excerpt.slice(0, 200)}`.trim();
    const causation = await causedBy(this.services.store, webhookEndpoints.stream(t.endpoint_id));
    await this.services.invoke(webhookEndpointsDisableFailing, { id: t.endpoint_id, detail }, { auth: systemAuth('webhook-worker', t.organization_id), requestId: newId(), causation });
    // A disabled endpoint is given up on (the DeliveriesFailing alert, ops/alerts.yml).
    this.services.metrics.deliveries.inc({ channel: 'webhook', result: 'gave_up' });
  }

  /** Aborts the deliveries in flight (not recorded: they go again) and waits for the tasks to give their endpoints back. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.inFlight.values()]);
  }
}

/** What an endpoint's queue depended on when it was found empty: the outbox's newest position and the endpoint's settings. */
function idleKey(t: DeliveryTarget, top: string): string {
  return `${top}|${t.url}|${t.event_types.join(',')}|${t.enabled_at}|${t.secrets.length}`;
}

const dispatchers = new WeakMap<Services, Dispatcher>();

function dispatcherOf(services: Services): Dispatcher {
  let d = dispatchers.get(services);
  if (!d) {
    d = new Dispatcher(services);
    dispatchers.set(services, d);
  }
  return d;
}

/** Delivers webhooks every second (users wait for them), each endpoint on its own. */
export const webhookWorker: Worker<WebhookPassResult> = {
  name: 'webhooks',
  intervalMs: 1000,
  runOnce: (services) => dispatcherOf(services).pass(),
  async stop(services) {
    const d = dispatchers.get(services);
    dispatchers.delete(services);
    await d?.stop();
  },
};
