// The "installing an app" guide shown on /docs above the integrations operations: all a third-party developer needs.
import { SCOPES, SCOPE_WORDS } from '../../domain/integrations/scopes.ts';
import { type SafeHtml, html } from './html.ts';

/** HTML of the guide (URLs written as `{app_url}` / `{integrations_url}`, the service's public URLs). */
export function installGuideHtml(): SafeHtml {
  const scopes = SCOPES.map((s) => html`<li><code>${s}</code>: ${SCOPE_WORDS[s]}</li>`);
  return html`<h3>Installing your app</h3>
<ol>
<li><strong>Register.</strong> The operator runs <code>core-server admin client create --name "Your App" --redirect-url https://your.app/callback --scopes repairer</code>
and gives you <code>client_id</code> and <code>client_secret</code> (<code>svc_secret_...</code>, shown once; keep it on your server).
Redirect URLs are matched byte for byte: https, or http only on localhost; no fragment.</li>
<li><strong>Send the user to</strong> <code>GET {app_url}/auth/integration/authorize?client_id=…&amp;state=…&amp;scopes=["repairer"]&amp;redirect_url=…</code>.
<code>state</code> is required: a fresh random value per attempt that you keep (15 minutes, once). <code>scopes</code> may be a JSON array or a comma- or
space-separated list. Recommended: PKCE, <code>&amp;code_challenge=BASE64URL(SHA256(verifier))&amp;code_challenge_method=S256</code>, then
<code>code_verifier</code> in the exchange. The user signs in if needed and an owner or admin of their organization allows or denies.
An unknown client or redirect URL shows an error page and does not come back to you.</li>
<li><strong>Receive the redirect.</strong> Allow: <code>redirect_url?code=svc_code_…&amp;state=…</code>. Deny: <code>?error=access_denied&amp;state=…</code>;
bad scopes: <code>error=invalid_scope</code>; missing state: <code>error=invalid_request</code>. Reject any <code>state</code> you did not issue or already used.</li>
<li><strong>Exchange the code</strong> within 15 minutes, once, from your server: <code>POST {integrations_url}/api/2026-01/integrations.insert</code>
with <code>{"access_code", "client_id", "client_secret"}</code> → <code>{"api_key": "svc_key_…", "integration_id"}</code>.
Wrong credentials: 401 <code>invalid_client</code>; an unknown, expired or used code: 400 <code>invalid_grant</code> (a second exchange also revokes the key made from the code).
The key belongs to the organization, not the user: store it per organization (<code>integrations.get</code> tells you which).</li>
<li><strong>Call the API</strong> with <code>Authorization: Bearer &lt;api_key&gt;</code> and <code>Svc-Integration-ID: &lt;integration_id&gt;</code> on every operation
but <code>integrations.insert</code>. Missing, wrong, revoked or mismatched: 401 <code>unauthenticated</code>; outside your scopes: 403 <code>forbidden</code>.
<code>integrations.remove</code> uninstalls (the key stops working at once).</li>
</ol>
<p>Scopes:</p><ul>${scopes}</ul>`;
}
