// Prometheus metrics of one service instance (its own registry, so tests can run several apps).
import client from 'prom-client';

/** The metrics the service exports at GET /metrics. */
export interface Metrics {
  registry: client.Registry;
  /** Labelled by the error code of the answer (`none` for a success): an error-rate alert can tell faults from refusals. */
  httpDuration: client.Histogram<'operation' | 'status' | 'code'>;
  appendDuration: client.Histogram<never>;
  projectionLag: client.Gauge<'projection'>;
  projectionState: client.Gauge<'projection' | 'state'>;
  projectionFailures: client.Counter<'projection'>;
  /** Customer email delivery attempts by result: delivered (SMTP), outbox (no SMTP_URL), failed (retried later), gave_up (staff told). */
  emailDeliveries: client.Counter<'result'>;
  /** Blue/green builds of read models under way here: the share done (see docs/operations.md). */
  projectionRebuild: client.Gauge<'projection'>;
  projectionRebuildFailures: client.Counter<'projection'>;
  /** Events each projection applied (relevant to it) in this process. */
  projectionEventsApplied: client.Counter<'projection'>;
  projectionLagEvents: client.Gauge<'projection'>;
  /** Events each projection has not yet applied, counted at scrape time up to LAG_EVENTS_CAP (set by the composition root). */
  lagEventsSource?: () => Promise<Map<string, number>>;
  workerPasses: client.Counter<'worker' | 'result'>;
  workerPassDuration: client.Histogram<'worker'>;
  /** What passes did (the numbers a worker's result holds: items invoiced, suspended, purged...). */
  workerItems: client.Counter<'worker'>;
  workerFailures: client.Counter<'worker'>;
  workerLastSuccess: client.Gauge<'worker'>;
  /** Server-sent-event streams open in this process, by operation. */
  sseConnections: client.Gauge<'stream'>;
  dbPoolConnections: client.Gauge<'state'>;
  dbPoolWaiting: client.Gauge<never>;
  dbPoolErrors: client.Counter<never>;
  /** The database pool's counts at scrape time (set by the composition root). */
  poolSource?: () => { inUse: number; idle: number; waiting: number };
  /** Webhook and e-mail deliveries by channel (webhook, email...) and result (delivered, failed, gave_up): for the deliveries-failing alert. */
  deliveries: client.Counter<'channel' | 'result'>;
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
      labelNames: ['operation', 'status', 'code'],
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
    emailDeliveries: new client.Counter({
      name: 'email_deliveries_total',
      help: 'Customer email delivery attempts by result (delivered, outbox, failed, gave_up)',
      labelNames: ['result'],
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
    projectionEventsApplied: new client.Counter({
      name: 'projection_events_applied_total',
      help: 'Events a projection applied in this process (the events it handles; others only move its checkpoint)',
      labelNames: ['projection'],
      registers: [registry],
    }),
    projectionLagEvents: new client.Gauge({
      name: 'projection_lag_events',
      help: `Events in the log a projection has not yet applied, counted up to ${LAG_EVENTS_CAP}; 0 when caught up`,
      labelNames: ['projection'],
      registers: [registry],
      async collect() {
        const lags = await metrics.lagEventsSource?.();
        for (const [projection, n] of lags ?? []) this.set({ projection }, n);
      },
    }),
    workerPasses: new client.Counter({ name: 'worker_passes_total', help: 'Passes of a background worker, by result (ok, failed)', labelNames: ['worker', 'result'], registers: [registry] }),
    workerPassDuration: new client.Histogram({
      name: 'worker_pass_duration_seconds',
      help: 'How long a pass of a background worker took',
      labelNames: ['worker'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
      registers: [registry],
    }),
    workerItems: new client.Counter({ name: 'worker_items_total', help: 'What passes of a background worker did (invoices made, accounts suspended, keys purged...)', labelNames: ['worker'], registers: [registry] }),
    workerFailures: new client.Counter({ name: 'worker_failures_total', help: 'Passes of a background worker that failed (logged with the error)', labelNames: ['worker'], registers: [registry] }),
    workerLastSuccess: new client.Gauge({ name: 'worker_last_success_timestamp_seconds', help: 'When a background worker last finished a pass without failing (Unix time)', labelNames: ['worker'], registers: [registry] }),
    sseConnections: new client.Gauge({ name: 'sse_connections', help: 'Server-sent-event streams open in this process, by stream operation', labelNames: ['stream'], registers: [registry] }),
    dbPoolConnections: new client.Gauge({
      name: 'db_pool_connections',
      help: 'Database connections of this process by state (in_use, idle)',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const pool = metrics.poolSource?.();
        if (!pool) return;
        this.set({ state: 'in_use' }, pool.inUse);
        this.set({ state: 'idle' }, pool.idle);
      },
    }),
    dbPoolWaiting: new client.Gauge({
      name: 'db_pool_waiting',
      help: 'Queries of this process waiting for a database connection (the pool is exhausted while this stays above 0)',
      registers: [registry],
      collect() {
        const pool = metrics.poolSource?.();
        if (pool) this.set(pool.waiting);
      },
    }),
    dbPoolErrors: new client.Counter({ name: 'db_pool_errors_total', help: 'Database connections that could not be opened, or timed out waiting for one', registers: [registry] }),
    deliveries: new client.Counter({
      name: 'deliveries_total',
      help: 'Outgoing deliveries (webhooks, e-mails) by channel and result (delivered, failed: will retry, gave_up: no more retries)',
      labelNames: ['channel', 'result'],
      registers: [registry],
    }),
  };
  return metrics;
}

/** Most unapplied events counted per projection at a scrape (a rebuild's backlog reads as this many; the seconds say how far). */
export const LAG_EVENTS_CAP = 10_000;
