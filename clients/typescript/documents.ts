// The two OpenAPI documents as the service serves them, built from the registry without starting it (client generation,
// lint); their servers are relative (a client is given its base URL).
import { areas } from '../../src/areas/index.ts';
import { Registry } from '../../src/contract/registry.ts';
import { openApiDocument } from '../../src/http/openapi.ts';


/** The core and integrations documents. */
export function apiDocuments(): Record<'core' | 'integrations', Record<string, unknown>> {
  const registry = new Registry(areas.flatMap((a) => a.operations));
  return {
    core: openApiDocument(registry.list('core'), { surface: 'core', title: 'core-server', serverUrl: '/api/v1' }),
    integrations: openApiDocument(registry.list('integrations'), { surface: 'integrations', title: 'core-server integrations', serverUrl: '/api/2026-01' }),
  };
}
