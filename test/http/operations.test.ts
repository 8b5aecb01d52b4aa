// Issue 30: every process can be watched. The operations listener (OPS_PORT) answers /healthz, /readyz (one shape)
// and /metrics; what the shipped alerts and dashboard graph exists on /metrics; workers are measured.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { backends } from '../support/db.ts';
import { type TestService, startService } from '../support/app.ts';
import { ROOT } from '../support/process.ts';

const PROMQL_FUNCTIONS = new Set(['histogram_quantile', 'clamp_min', 'clamp_max', 'label_replace', 'max_over_time', 'min_over_time', 'avg_over_time', 'sum_over_time', 'count_over_time', 'last_over_time', 'absent_over_time']);

/** The metric names a PromQL expression reads (label values and functions left out; histogram series to their metric). */
function metricNames(expr: string): string[] {
  const bare = expr.replace(/"[^"]*"/g, '""').replace(/\{[^}]*\}/g, '{}').replace(/\bby \([^)]*\)/g, '');
  const names = bare.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g) ?? [];
  return names.filter((n) => !PROMQL_FUNCTIONS.has(n)).map((n) => n.replace(/_(bucket|count|sum)$/, ''));
}

/** Every expression of ops/alerts.yml and ops/grafana-dashboard.json. */
function shippedExpressions(): { where: string; expr: string }[] {
  const alerts = fs.readFileSync(path.join(ROOT, 'ops/alerts.yml'), 'utf8');
  const fromAlerts = [...alerts.matchAll(/^\s+expr: (.+)$/gm)].map((m) => ({ where: 'ops/alerts.yml', expr: m[1] ?? '' }));
  const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'ops/grafana-dashboard.json'), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
  const fromDashboard = dashboard.panels.flatMap((p) => p.targets.map((t) => ({ where: `dashboard panel "${p.title}"`, expr: t.expr })));
  return [...fromAlerts, ...fromDashboard];
}

for (const backend of backends()) {
  describe(`operations listener and metrics (${backend})`, function () {
    let svc: TestService;
    let opsUrl: string;
    before(async () => {
      svc = await startService(backend, { env: { METRICS_TOKEN: 'operations-test-token' } });
      opsUrl = await svc.app.listenOps(0, '127.0.0.1');
    });
    after(async () => svc?.close());
    const auth = { authorization: 'Bearer operations-test-token' };

    it('answers /healthz, /readyz and /metrics on the operations port, /readyz and /metrics only with METRICS_TOKEN', async () => {
      expect(await (await fetch(`${opsUrl}/healthz`)).json()).to.deep.equal({ status: 'ok' });
      expect((await fetch(`${opsUrl}/readyz`)).status).to.equal(401);
      expect((await fetch(`${opsUrl}/metrics`)).status).to.equal(401);
      const ready = await fetch(`${opsUrl}/readyz`, { headers: auth });
      expect(ready.status).to.equal(200);
      const body = (await ready.json()) as { status: string; checks: { name: string; ok: boolean; detail: string }[] };
      expect(body.status).to.equal('ready');
      expect(body.checks.map((c) => c.name)).to.include.members(['database', 'projection:identity', 'projection:billing.invoices']);
      // The same shape as the API port's.
      const onApi = (await (await fetch(`${svc.url}/readyz`, { headers: auth })).json()) as typeof body;
      expect(onApi.checks.map((c) => c.name)).to.deep.equal(body.checks.map((c) => c.name));
      expect((await fetch(`${opsUrl}/metrics`, { headers: auth })).headers.get('content-type')).to.contain('text/plain');
      const elsewhere = await fetch(`${opsUrl}/api/v1/auth.sessions.get`, { method: 'POST' });
      expect(elsewhere.status).to.equal(404);
    });

    it('has on /metrics every metric the shipped alerts and dashboard name', async () => {
      const text = await (await fetch(`${opsUrl}/metrics`, { headers: auth })).text();
      const missing: string[] = [];
      const seen = new Set<string>();
      for (const { where, expr } of shippedExpressions()) {
        for (const name of metricNames(expr)) {
          seen.add(name);
          if (!text.includes(`# TYPE ${name} `)) missing.push(`${name} (${where})`);
        }
      }
      expect(missing).to.deep.equal([]);
      // The five alerts' metrics are among them.
      expect([...seen]).to.include.members(['projection_state', 'projection_lag_seconds', 'worker_last_success_timestamp_seconds', 'http_request_duration_seconds', 'db_pool_waiting', 'deliveries_total']);
    });

    it('measures worker passes: count, items, last success', async () => {
      await svc.app.workers.runOnce();
      const text = await (await fetch(`${opsUrl}/metrics`, { headers: auth })).text();
      expect(text).to.match(/worker_passes_total\{worker="usage-invoices",result="ok"\} 1/);
      expect(text).to.match(/worker_last_success_timestamp_seconds\{worker="overdue"\} \d+/);
      expect(text).to.match(/worker_pass_duration_seconds_count\{worker="collection"\} 1/);
    });

    it('counts events applied and events behind per projection', async () => {
      const owner = await svc.signUp();
      expect(owner.token).to.be.a('string');
      const text = await (await fetch(`${opsUrl}/metrics`, { headers: auth })).text();
      expect(Number(/projection_events_applied_total\{projection="identity"\} (\d+)/.exec(text)?.[1])).to.be.greaterThan(0);
      expect(text).to.match(/projection_lag_events\{projection="identity"\} 0/);
    });
  });
}
