// Prometheus metrics of one service instance (its own registry, so tests can run several apps).
import client from 'prom-client';

/** The metrics the service exports at GET /metrics. */
export interface Metrics {
  registry: client.Registry;
  httpDuration: client.Histogram<'operation' | 'status'>;
  appendDuration: client.Histogram<never>;
  projectionLag: client.Gauge<'projection'>;
  projectionState: client.Gauge<'projection' | 'state'>;
  projectionFailures: client.Counter<'projection'>;
  /** Blue/green builds of read models under way here: the share done (see docs/operations.md). */
  projectionRebuild: client.Gauge<'projection'>;
  projectionRebuildFailures: client.Counter<'projection'>;
  /** Subscription months the usage invoice worker could not invoice (issue 26), counted at scrape time. */
  usageMonthsRefused: client.Gauge<never>;
  /** Measures every projection's lag at scrape time (set by the composition root). */
  lagSource?: () => Promise<Map<string, number>>;
  refundsDue: client.Gauge<never>;
  /** Counts the charges with money due back at scrape time (set by the composition root). */
  refundsDueSource?: () => Promise<number>;
  /** Counts the refused usage months at scrape time (set by the composition root). */
  refusedUsageMonthsSource?: () => Promise<number>;
  attentionItems: client.Gauge<'kind'>;
  /** Counts what needs a person, by kind, at scrape time (set by the composition root). */
  attentionSource?: () => Promise<Map<string, number>>;
  /** Outbound webhook delivery attempts by result (delivered, failed, endpoint_disabled). */
  webhookDeliveries: client.Counter<'result'>;
  webhookBacklog: client.Gauge<never>;
  /** Counts the events waiting for delivery to enabled endpoints at scrape time (set by the composition root). */
  webhookBacklogSource?: () => Promise<number>;
}

/** A gauge read at scrape time (from billing.charges, the usage months...): what needs a person shows without the console. */
function scrapedCount(registry: client.Registry, name: string, help: string, read: () => Promise<number> | undefined): client.Gauge<never> {
  return new client.Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      const n = await read();
      if (n !== undefined) this.set(n);
    },
  });
}

/** Creates a registry with the service's metrics and the process defaults. */
export function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const metrics: Metrics = {
    registry,
    httpDuration: new client.Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by operation and status',
      labelNames: ['operation', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    appendDuration: new client.Histogram({
      name: 'eventstore_append_duration_seconds',
      help: 'Latency of event store appends',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
      registers: [registry],
    }),
    // Measured when scraped, from the log and the checkpoints: a stalled projection's lag grows, whoever runs it.
    projectionLag: new client.Gauge({
      name: 'projection_lag_seconds',
      help: 'Age of the oldest event a projection has not yet applied; 0 when caught up',
      labelNames: ['projection'],
      registers: [registry],
      async collect() {
        const lags = await metrics.lagSource?.();
        for (const [projection, seconds] of lags ?? []) this.set({ projection }, seconds);
      },
    }),
    projectionState: new client.Gauge({
      name: 'projection_state',
      help: '1 for the state each projection is in (running, catching_up, failed), 0 for the others',
      labelNames: ['projection', 'state'],
      registers: [registry],
    }),
    // Read at scrape time from billing.charges (issue 26): money owed back to customers is visible without the console.
    refundsDue: scrapedCount(registry, 'billing_refunds_due', 'Provider charges taken but not (fully) applied whose money is due back to the customer (the refunds-due list)', () => metrics.refundsDueSource?.()),
    usageMonthsRefused: scrapedCount(registry, 'usage_months_refused', 'Subscription months with usage that the usage invoice worker could not invoice (billing.usage.refusals.list lists them and why)', () => metrics.refusedUsageMonthsSource?.()),
    // Measured when scraped: an alert on it reaches someone even when nobody opens the console.
    attentionItems: new client.Gauge({
      name: 'billing_attention_items',
      help: 'Items waiting for a person (the console\'s Needs attention list), by kind',
      labelNames: ['kind'],
      registers: [registry],
      async collect() {
        const counts = await metrics.attentionSource?.();
        for (const [kind, n] of counts ?? []) this.set({ kind }, n);
      },
    }),
    webhookDeliveries: new client.Counter({
      name: 'webhook_deliveries_total',
      help: 'Outbound webhook delivery attempts by result: delivered (2xx), failed (any other answer or none; retried with backoff), endpoint_disabled (failing for 3 days)',
      labelNames: ['result'],
      registers: [registry],
    }),
    webhookBacklog: scrapedCount(registry, 'webhook_deliveries_pending', 'Events waiting to be delivered to enabled webhook endpoints (the backlog; a growing one is a slow or failing endpoint)', () => metrics.webhookBacklogSource?.()),
    projectionFailures: new client.Counter({
      name: 'projection_failures_total',
      help: 'Times a projection stopped at an event it could not apply',
      labelNames: ['projection'],
      registers: [registry],
    }),
    projectionRebuild: new client.Gauge({
      name: 'projection_rebuild_progress',
      help: 'Share (0..1) of the log a read model being rebuilt beside the live one has applied; absent when none is',
      labelNames: ['projection'],
      registers: [registry],
    }),
    projectionRebuildFailures: new client.Counter({
      name: 'projection_rebuild_failures_total',
      help: 'Times building a read model beside the live one failed (the live one keeps serving; retried)',
      labelNames: ['projection'],
      registers: [registry],
    }),
  };
  return metrics;
}
