// The page frame of every server-rendered page, its stylesheet, and the security headers pages send.
import type { Response } from 'express';
import { type SafeHtml, html, markup } from './html.ts';

/** Path of the one stylesheet (served by pages/index.ts; CSP allows only 'self' styles). */
export const STYLESHEET = '/assets/app.css';

/** A complete HTML document around `body`. */
export function layout(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · core-server</title>
<link rel="stylesheet" href="${STYLESHEET}">
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

/**
 * Headers of every page: never framed (clickjacking on the consent page), no Referer (the authorize URL
 * carries state), not cached. `formTargets` are extra origins a form may lead to (the app's redirect URL).
 */
export function pageHeaders(res: Response, formTargets: string[] = []): void {
  res.set({
    'Content-Security-Policy': `default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'${formTargets.map((o) => ` ${o}`).join('')}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
}

/** Sends a page with its status and headers. */
export function sendPage(res: Response, status: number, title: string, body: SafeHtml, formTargets: string[] = []): void {
  pageHeaders(res, formTargets);
  res.status(status).type('html').send(markup(layout(title, body)));
}

/** An error page: says what went wrong and never redirects; `code` (the error code, for scripts and tests) is the alert's data-code. */
export function sendErrorPage(res: Response, status: number, title: string, message: string, code?: string): void {
  const data = code ? html` data-code="${code}"` : '';
  sendPage(res, status, title, html`<h1>${title}</h1><p role="alert"${data}>${message}</p><p><a href="/">Go to the start page</a></p>`);
}

/** The stylesheet: readable on a phone and a desktop, no framework. */
export const CSS = `*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.5;color:#1b1b1b;background:#f4f5f7}
main{max-width:34rem;margin:0 auto;padding:1.25rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
.card{background:#fff;border:1px solid #d9dce1;border-radius:.5rem;padding:1.25rem;margin-bottom:1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=email],input[type=password],select{width:100%;padding:.6rem;font-size:1rem;border:1px solid #8a8f98;border-radius:.35rem}
button{font-size:1rem;padding:.65rem 1.1rem;border-radius:.35rem;border:1px solid #1a56db;background:#1a56db;color:#fff;cursor:pointer;min-height:2.75rem}
button.secondary{background:#fff;color:#1a56db}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1rem}
.error,[role=alert]{color:#9b1c1c}
.notice{background:#fff8e1;border:1px solid #e0b400;border-radius:.35rem;padding:.75rem}
ul.scopes{padding-left:1.1rem}
.muted{color:#555;font-size:.9rem}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
`;
