// A real HTTP receiver of webhook deliveries: each path is an endpoint that verifies every delivery with the
// `standardwebhooks` package (a verifier nobody here wrote), records it, and answers as the test tells it to.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as the receiver got it. */
export interface Received {
  webhookId: string;
  body: { id: string; type: string; occurred_at: string; subject: { type: string; id: string }; data: Record<string, unknown> };
  raw: string;
  /** Which of the path's secrets verified it (index into `secrets`), -1 for none. */
  verifiedBy: number;
  answered: number | 'hung';
}

/** How a path answers: 200, an error status, or not at all until released. */
export type Mode = { kind: 'ok' } | { kind: 'status'; status: number; times: number } | { kind: 'hang'; after: number };

interface Path {
  secrets: string[];
  mode: Mode;
  got: Received[];
  hung: (() => void)[];
}

/** The receiver: `url(path)` to register, `secret(path, s)` once the service showed it, `got(path)` to check. */
export class WebhookReceiver {
  private readonly paths = new Map<string, Path>();
  private server: http.Server | null = null;
  private base = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', () => resolve()));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  url(path: string): string {
    if (!this.paths.has(path)) this.paths.set(path, { secrets: [], mode: { kind: 'ok' }, got: [], hung: [] });
    return `${this.base}/${path}`;
  }

  /** The secrets a path verifies with (any of them may sign). */
  secrets(path: string, secrets: string[]): void {
    this.path(path).secrets = secrets;
  }

  mode(path: string, mode: Mode): void {
    this.path(path).mode = mode;
  }

  got(path: string): Received[] {
    return this.path(path).got;
  }

  /** Answers every request a `hang` path holds. */
  release(path: string): void {
    const p = this.path(path);
    p.mode = { kind: 'ok' };
    for (const r of p.hung.splice(0)) r();
  }

  async stop(): Promise<void> {
    for (const p of this.paths.values()) for (const r of p.hung.splice(0)) r();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private path(path: string): Path {
    const p = this.paths.get(path);
    if (!p) throw new Error(`no receiver path ${path}`);
    return p;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    const p = this.paths.get((req.url ?? '').slice(1));
    if (!p) return void res.writeHead(404).end('no such path');
    const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
    const verifiedBy = p.secrets.findIndex((s) => {
      try {
        new Webhook(s).verify(raw, headers);
        return true;
      } catch {
        return false;
      }
    });
    const record: Received = { webhookId: headers['webhook-id'], body: JSON.parse(raw) as Received['body'], raw, verifiedBy, answered: 200 };
    p.got.push(record);
    if (verifiedBy < 0) return void res.writeHead(400).end('signature does not verify');
    const mode = p.mode;
    if (mode.kind === 'status' && mode.times > 0) {
      mode.times--;
      record.answered = mode.status;
      return void res.writeHead(mode.status).end(`receiver failing (${mode.status})`);
    }
    if (mode.kind === 'hang') {
      if (mode.after > 0) mode.after--;
      else {
        record.answered = 'hung';
        p.hung.push(() => res.writeHead(200).end('late'));
        return;
      }
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }
}
