// Who may open the console, and the wrapper every console route runs in: signed in, staff, CSRF-checked forms.
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Services } from '../../../context.ts';
import { sendPage } from '../layout.ts';
import { html } from '../html.ts';
import { csrfToken, currentSession, validCsrf, type WebSession } from '../web-session.ts';
import { ConsoleApi } from './api.ts';
import { sendConsole } from './layout.ts';
import { ops } from '../../../areas/operations.ts';
import { noteCaller } from '../../router.ts';

/** What a console handler gets: the request, the signed-in staff session and an API client acting as that session. */
export interface ConsolePage {
  req: Request;
  res: Response;
  session: WebSession;
  api: ConsoleApi;
  /** Today in UTC (the service's clock), YYYY-MM-DD: the default of date fields. */
  today: string;
  /** Fields of a submitted form (strings only). */
  form: Record<string, string>;
}

/** True for billing and platform staff: the only people the console is for. */
export function isStaff(session: WebSession): boolean {
  return session.auth.platformRoles.includes('billing_staff') || session.auth.platformRoles.includes('platform_staff');
}

const urlencoded = express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 2000 });

/** A console route: sends strangers to sign in, org users to a short page saying the console is for staff, and checks the CSRF token of forms. */
export function consoleRoute(services: Services, handler: (p: ConsolePage) => Promise<void>): RequestHandler[] {
  const run: RequestHandler = async (req, res, next) => {
    try {
      const session = await currentSession(req, services);
      if (!session) return void res.redirect(303, `/auth/login?return_to=${encodeURIComponent(req.method === 'GET' ? req.originalUrl : '/console')}`);
      noteCaller(res, session.auth);
      if (!isStaff(session)) return void notForYou(res, session);
      const form: Record<string, string> = {};
      if (req.method === 'POST') {
        const body: unknown = req.body;
        if (body && typeof body === 'object') for (const [k, v] of Object.entries(body)) if (typeof v === 'string') form[k] = v;
        if (!validCsrf(session, form.csrf))
          return void sendConsole(res, session, 403, { title: 'Form expired', body: html`<h1>Nothing was changed</h1><p role="alert">The form expired or did not come from the console. Go back, reload the page and try again.</p>` });
      }
      const api = new ConsoleApi(services, session, String(res.locals.requestId ?? ''));
      const waiting = await api.call(ops['billing.attention.list'], { limit: 1 });
      if (waiting.ok) res.locals.attentionCount = waiting.body.counts.total;
      await handler({ req, res, session, api, today: services.clock.now().toISOString().slice(0, 10), form });
    } catch (err) {
      next(err);
    }
  };
  return [urlencoded, run];
}

// Signed in, but an organization's user: the console is not for them, and says so (no data, no redirect loop).
function notForYou(res: Response, session: WebSession): void {
  sendPage(res, 403, 'Billing console', html`<h1>The billing console is for billing staff</h1>
<div class="card"><p>You are signed in as <strong>${session.auth.email}</strong>, who is not billing or platform staff, so the console is closed to you.</p>
<p>Your organization's invoices and payment status are in your own billing pages or through the API (<a href="/docs">API reference</a>).</p>
<form method="post" action="/auth/logout"><input type="hidden" name="csrf" value="${csrfToken(session)}"><button type="submit" class="secondary">Sign out</button></form></div>`);
}
