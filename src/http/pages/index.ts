// Every server-rendered page of the app, mounted on the express app by createHttpApp's `mount` option.
import type express from 'express';
import type { Services } from '../../context.ts';
import { CSS, STYLESHEET } from './layout.ts';
import { mountLogin } from './login.ts';
import { mountAuthorize } from './authorize.ts';
import { mountConsole } from './console/index.ts';

/** Mounts the stylesheet, the start page, sign-in/out, the organization switcher, the authorize page and the billing console. */
export function mountPages(app: express.Express, services: Services): void {
  app.get(STYLESHEET, (_req, res) => {
    res.set('Cache-Control', 'public, max-age=3600').type('css').send(CSS);
  });
  mountLogin(app, services);
  mountAuthorize(app, services);
  mountConsole(app, services);
}
