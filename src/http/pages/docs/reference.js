// Starts the API reference on /docs (Scalar's standalone bundle, served from node_modules): both documents, the
// try-it console signed in with a session token typed into its Authentication panel, nothing fetched from elsewhere.
/* global Scalar */
Scalar.createApiReference('#reference', {
  sources: [
    { title: 'Core API', slug: 'core', url: '/api/v1/openapi.json' },
    { title: 'Integrations API', slug: 'integrations', url: '/api/2026-01/openapi.json' },
  ],
  // Fonts, telemetry and the hosted agent, MCP and proxy would reach Scalar's servers: all off (the CSP refuses them too).
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  hideClientButton: false,
  persistAuth: false,
  documentDownloadType: 'json',
  defaultOpenFirstTag: false,
  authentication: { preferredSecurityScheme: 'bearerAuth' },
});
