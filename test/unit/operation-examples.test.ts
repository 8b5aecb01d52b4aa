// Every routed operation carries a request and a success example (shown in OpenAPI and /docs), and both parse with the
// operation's own schemas: an operation added without them, or whose schemas moved away from them, fails here.
import { expect } from 'chai';
import { areas } from '../../src/areas/index.ts';
import type { Operation } from '../../src/contract/operation.ts';
import { apiDocuments } from '../../clients/typescript/documents.ts';

const routed = areas.flatMap((a) => a.operations).filter((o): o is Operation => o.surface !== 'internal');
const issues = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) => (r.error?.issues ?? []).map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ');

describe('operation examples', () => {
  it('are declared by every routed operation', () => {
    expect(routed.length).to.be.greaterThan(100);
    const without = routed.filter((o) => o.examples === undefined).map((o) => `${o.surface} ${o.id}`);
    expect(without, 'operations without examples (add `examples: { request, response }` to the declaration)').to.deep.equal([]);
  });

  it('parse with the request and response schemas of their operation', () => {
    const broken: string[] = [];
    for (const op of routed) {
      const ex = op.examples;
      if (!ex) continue;
      if (op.request === null) {
        if (ex.request !== null) broken.push(`${op.id}: request example given for an operation without a body`);
      } else {
        const r = op.request.safeParse(ex.request);
        if (!r.success) broken.push(`${op.id} request: ${issues(r)}`);
      }
      const s = op.response.safeParse(ex.response);
      if (!s.success) broken.push(`${op.id} response: ${issues(s)}`);
    }
    expect(broken).to.deep.equal([]);
  });

  it('are in both documents, with the request body and the success answer of each operation', () => {
    const docs = apiDocuments();
    for (const surface of ['core', 'integrations'] as const) {
      const paths = docs[surface].paths as Record<string, { post: { requestBody?: { content: Record<string, { example?: unknown }> }; responses: Record<string, { content?: Record<string, { example?: unknown }> }> } }>;
      for (const op of routed.filter((o) => o.surface === surface)) {
        const post = paths[`/${op.id}`]?.post;
        expect(post, op.id).to.not.equal(undefined);
        if (op.request) expect(post?.requestBody?.content['application/json']?.example, op.id).to.deep.equal(op.examples?.request);
        const success = Object.values(post?.responses['200']?.content ?? {})[0];
        expect(success?.example, op.id).to.deep.equal(op.examples?.response);
      }
    }
  });
});
