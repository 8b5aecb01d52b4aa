#!/usr/bin/env node
// Entry point for `npx core-server`: the bundled CLI (dist/, see bin/build.js) when it is as new as the sources,
// else the TypeScript itself through tsx's loader (a slower start: it compiles at run time).
import process from 'node:process';
import { compiledIsFresh } from './compiled.js';

if (process.env.CORE_SERVER_FROM_SOURCE !== '1' && compiledIsFresh()) {
  await import('../dist/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
