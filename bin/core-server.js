#!/usr/bin/env node
// Entry point for `npx core-server`: runs the TypeScript CLI through tsx's loader.
import { register } from 'tsx/esm/api';
register();
await import('../src/main.ts');
