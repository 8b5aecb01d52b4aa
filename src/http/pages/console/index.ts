// The billing staff console at /console: server-rendered pages on the public core API (see docs/decisions.md).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type express from 'express';
import type { Services } from '../../../context.ts';
import { ASSETS } from './layout.ts';
import { consoleRoute } from './route.ts';
import { mountCustomers } from './customers.ts';
import { mountInvoices } from './invoices.ts';
import { mountInvoiceActions } from './invoice-actions.ts';
import { mountInvoiceCorrections } from './invoice-correction-routes.ts';
import { mountNotes } from './notes-routes.ts';
import { mountStatement } from './statement.ts';
import { mountOverdue } from './overdue.ts';
import { mountHistory } from './history.ts';
import { mountConfiguration } from './configuration.ts';
import { mountHealth } from './health.ts';
import { mountAttention } from './attention.ts';
import { mountRefundsDue } from './refunds-due.ts';
import { mountUsage } from './usage.ts';
import { mountSearch } from './search.ts';
import { mountCustomerForms } from './customer-forms.ts';
import { mountCustomerErasure } from './customer-erasure.ts';
import { mountDocuments } from './documents.ts';
import { mountMessages } from './messages.ts';
import { mountActivity } from './activity.ts';

// Chart.js's browser build, from node_modules (nothing is downloaded at run time); its package exports only the module entry, so find the folder through it.
const chartJs = () => path.join(path.dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js');
const own = (name: string) => path.join(import.meta.dirname, 'assets', name);

/** The console's static files: its stylesheet, its script and Chart.js (read once, cached by browsers for an hour). */
const FILES: Record<string, { file: () => string; type: string }> = {
  'console.css': { file: () => own('console.css'), type: 'text/css; charset=utf-8' },
  'console.js': { file: () => own('console.js'), type: 'text/javascript; charset=utf-8' },
  'chart.umd.min.js': { file: chartJs, type: 'text/javascript; charset=utf-8' },
};

/** Mounts every console page and its assets. */
export function mountConsole(app: express.Express, services: Services): void {
  const cache = new Map<string, Buffer>();
  app.get(`${ASSETS}/:name`, (req, res) => {
    const name = String(req.params.name);
    const asset = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
    if (!asset) return void res.status(404).type('text').send('Not found');
    let body = cache.get(name);
    if (!body) {
      body = readFileSync(asset.file());
      cache.set(name, body);
    }
    res.set({ 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Resource-Policy': 'same-origin' }).type(asset.type).send(body);
  });
  app.get(['/console', '/console/'], ...consoleRoute(services, async (p) => p.res.redirect(303, '/console/customers')));
  // Before the customer page: /console/customers/new is not a customer id.
  mountCustomerForms(app, services);
  mountCustomerErasure(app, services);
  mountCustomers(app, services);
  mountInvoices(app, services);
  mountDocuments(app, services);
  mountMessages(app, services);
  mountInvoiceActions(app, services);
  mountInvoiceCorrections(app, services);
  mountNotes(app, services);
  mountStatement(app, services);
  mountOverdue(app, services);
  mountHistory(app, services);
  mountConfiguration(app, services);
  mountHealth(app, services);
  mountAttention(app, services);
  mountRefundsDue(app, services);
  mountUsage(app, services);
  mountSearch(app, services);
  mountActivity(app, services);
}
