// Run by bin/build.js after bundling (`node --import tsx src/make-pglite-template.ts dist`): writes the first start's
// PGlite template into the given directory (src/pglite-template.ts).
import { writePgliteTemplate } from './pglite-template.ts';

const out = process.argv[2];
if (!out) throw new Error('usage: make-pglite-template.ts <output directory>');
await writePgliteTemplate(out);
