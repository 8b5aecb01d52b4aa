// Uploads as a slow client sends them: headers and the first bytes now, the rest when the test says; and waiting for a
// condition on the event loop (polled, never timed).
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

/** Resolves once `check` holds; polled on the event loop, so a test waits for a state, not for time. */
export async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 20_000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('condition never held');
}

/** A PUT of `first` then `rest` (Content-Length of both) whose rest is held back until `finish()`; resolves to the status. */
export function slowPut(url: string, headers: Record<string, string>, first: Buffer, rest: Buffer): { finish(): Promise<number> } {
  const req = http.request(url, { method: 'PUT', headers: { ...headers, 'Content-Length': String(first.length + rest.length) } });
  const status = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
  req.write(first);
  return {
    finish: () => {
      req.end(rest);
      return status;
    },
  };
}

/** Whether the file store under `dir` is writing a temporary file (`*.part`) in the folder of `key`: an upload is under way. */
export async function uploadUnderWay(dir: string, key: string): Promise<boolean> {
  const folder = path.join(dir, ...key.split('/').slice(0, -1));
  const names = await fs.readdir(folder).catch(() => []);
  return names.some((n) => n.endsWith('.part'));
}
