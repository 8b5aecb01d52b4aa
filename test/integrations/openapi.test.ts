// The integrations API's OpenAPI document and the /docs page describe how an app authenticates.
import { expect } from 'chai';
import { startService, type TestService } from '../support/app.ts';

/** The parts of the document these tests read. */
interface OpenApiDoc {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, { post: { security: unknown; requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
  components: {
    securitySchemes: Record<string, Record<string, unknown>>;
    schemas: Record<string, { required?: string[]; properties: Record<string, { enum?: string[] }> }>;
  };
}

describe('integrations API documentation', () => {
  let svc: TestService;
  before(async () => {
    svc = await startService('pglite');
  });
  after(async () => svc?.close());

  it('serves an OpenAPI 3.1.0 document with the bearer and Svc-Integration-ID schemes', async () => {
    const res = await fetch(`${svc.url}/api/2026-01/openapi.json`);
    expect(res.status).to.equal(200);
    const doc = (await res.json()) as OpenApiDoc;
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.components.securitySchemes.bearerAuth!).to.include({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.integrationId!).to.include({ type: 'apiKey', in: 'header', name: 'Svc-Integration-ID' });
    expect(doc.paths['/integrations.remove']!.post.security).to.deep.equal([{ bearerAuth: [], integrationId: [] }]);
    expect(doc.paths['/integrations.get']!.post.security).to.deep.equal([{ bearerAuth: [], integrationId: [] }]);
    expect(doc.paths['/integrations.insert']!.post.security).to.deep.equal([]);
    const insert = doc.paths['/integrations.insert']!.post;
    expect(insert.requestBody.content['application/json']!.schema.$ref).to.equal('#/components/schemas/integrations.IntegrationInsertRequest');
    expect(doc.components.schemas['integrations.IntegrationInsertRequest']!.required).to.have.members(['access_code', 'client_id', 'client_secret']);
    expect(doc.components.schemas['integrations.IntegrationInsertResponse']!.required).to.have.members(['api_key', 'integration_id']);
    expect(doc.components.schemas['integrations.IntegrationInsertError']!.properties.code!.enum).to.include.members(['invalid_client', 'invalid_grant']);
    expect(doc.servers[0]!.url).to.match(/\/api\/2026-01$/);
  });

  it('lists both documents and the integrations operations on /docs/guide, which /docs links to', async () => {
    expect(await (await fetch(`${svc.url}/docs`)).text()).to.contain('href="/docs/guide"');
    const html = await (await fetch(`${svc.url}/docs/guide`)).text();
    expect(html).to.contain('href="/api/v1/openapi.json"').and.to.contain('href="/api/2026-01/openapi.json"');
    expect(html).to.contain('POST /api/2026-01/integrations.insert').and.to.contain('Svc-Integration-ID').and.to.contain('/auth/integration/authorize');
  });
});
