// Whether dist/ (the CLI compiled by bin/build.js) is as new as the TypeScript it was compiled from.
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const DIST = path.join(ROOT, 'dist');
export const STAMP = path.join(DIST, '.built');
/** The directories bundled into dist/. */
export const SOURCES = ['src', 'migrations'];
/**
 * How esbuild bundles the CLI: packages stay in node_modules; every dynamic import (what a command does,
 * src/cli/service.ts; S3; EventStoreDB) becomes a chunk loaded only when used, so `--version` loads little.
 */
export const BUILD_OPTIONS = {
  entryPoints: [path.join(ROOT, 'src/main.ts')],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
};

/** The newest modification time (ms) of any file under the sources, and the files themselves. */
export function sourceFiles() {
  const files = [];
  let newest = 0;
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        files.push(full);
        newest = Math.max(newest, fs.statSync(full).mtimeMs);
      }
    }
  };
  for (const s of SOURCES) walk(path.join(ROOT, s));
  return { files, newest };
}

/** True when dist/ was built after the last change to the sources (a checkout or an edit since makes it stale). */
export function compiledIsFresh() {
  let built;
  try {
    built = fs.statSync(STAMP).mtimeMs;
  } catch {
    return false;
  }
  return sourceFiles().newest <= built;
}
