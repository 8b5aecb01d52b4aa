// Prometheus metrics of one service instance (its own registry, so tests can run several apps).
import client from 'prom-client';

/** The metrics the service exports at GET /metrics. */
export interface Metrics {
  registry: client.Registry;
  httpDuration: client.Histogram<'operation' | 'status'>;
  appendDuration: client.Histogram<never>;
  projectionLag: client.Gauge<'projection'>;
}

/** Creates a registry with the service's metrics and the process defaults. */
export function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  return {
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
    projectionLag: new client.Gauge({
      name: 'projection_lag_seconds',
      help: 'Age of the newest event a projection has applied while it is behind; 0 when caught up',
      labelNames: ['projection'],
      registers: [registry],
    }),
  };
}
