// What each environment variable means, for `--help` and the configuration reference in docs/operations.md (made by
// configReference() from this table and the schema's defaults; a test fails when the document and the code differ).
import { type EnvName, envDefaults } from './config.ts';

/** Where a variable matters: every command, the HTTP processes, the operations listener, or the service's behaviour. */
export type EnvGroup = 'database' | 'http' | 'ops' | 'service' | 'objects';

/** Every variable the service reads: the type makes a new variable without a line here fail to compile. */
export const ENV_VARIABLES: Record<EnvName, { group: EnvGroup; text: string }> = {
  DATABASE_URL: { group: 'database', text: 'PostgreSQL connection string (postgres://user:password@host:5432/db). Unset: embedded PGlite in DATA_DIR (for `start` only).' },
  DATABASE_POOL_MAX: { group: 'database', text: 'Most PostgreSQL connections one process opens, all of them: its pool and its one listener connection. Size it per process kind: the sum over processes <= max_connections - reserve (see Sizing the PostgreSQL pool).' },
  EVENT_STORE: { group: 'database', text: '`postgres` (the log in the database, default) or an esdb:// / kurrentdb:// connection string (docs/eventstoredb.md).' },
  DATA_DIR: { group: 'database', text: 'Where the embedded database and the default object directory live.' },
  LOG_LEVEL: { group: 'database', text: 'fatal, error, warn, info, debug, trace or silent. Logs are JSON lines on stdout.' },
  OBJECT_STORE: { group: 'objects', text: 'file:<directory> (served by this service through signed URLs) or s3://bucket[/prefix]. Default: file:DATA_DIR/objects.' },
  OBJECT_URL_SECRET: { group: 'objects', text: 'Secret (32+ characters) signing the file store\'s URLs; set the same value on every process. Unset: a key file in the object directory.' },
  S3_ENDPOINT: { group: 'objects', text: 'S3-compatible endpoint URL (MinIO, Ceph); unset: AWS.' },
  AWS_ACCESS_KEY_ID: { group: 'objects', text: 'S3 access key (with AWS_SECRET_ACCESS_KEY); unset: the SDK\'s default chain (profiles, instance roles).' },
  AWS_SECRET_ACCESS_KEY: { group: 'objects', text: 'S3 secret key.' },
  AWS_SESSION_TOKEN: { group: 'objects', text: 'S3 session token of temporary credentials.' },
  PORT: { group: 'http', text: 'The HTTP port of `start` and `serve`.' },
  HOST: { group: 'http', text: 'The address `start` and `serve` listen on. Not a loopback address: production rules apply (SANDBOX_WEBHOOK_SECRET required).' },
  BASE_URL: { group: 'http', text: 'The public URL of the core API and pages (links, file URLs). Default: http://localhost:PORT.' },
  INTEGRATIONS_URL: { group: 'http', text: 'The public URL of the integrations API. Default: BASE_URL.' },
  APP_URL: { group: 'http', text: 'The public URL of the install flow pages. Default: BASE_URL.' },
  TRUST_PROXY: { group: 'http', text: 'Proxies whose X-Forwarded-For is believed: addresses, CIDR ranges, loopback, linklocal, uniquelocal (comma-separated). Unset: none.' },
  SESSION_TTL_HOURS: { group: 'http', text: 'How long a session token lives.' },
  PROJECTION_WAIT_MS: { group: 'http', text: 'How long a write waits for its read models before answering 503 projection_lag.' },
  RATE_LIMIT_LOGIN_PER_ACCOUNT: { group: 'http', text: 'Failed sign-ins allowed per account per window before 429.' },
  RATE_LIMIT_LOGIN_PER_ADDRESS: { group: 'http', text: 'Failed sign-ins allowed per source address per window.' },
  RATE_LIMIT_CLIENT_SECRET: { group: 'http', text: 'Failed client-secret attempts allowed per integration client per window.' },
  RATE_LIMIT_WINDOW_SECONDS: { group: 'http', text: 'The window of the three limits above.' },
  RATE_LIMIT_UPLOAD_URLS_PER_MINUTE: { group: 'http', text: 'Upload URLs one organization may ask for per minute.' },
  STREAMS_PER_TOKEN: { group: 'http', text: 'Server-sent-event streams one token may hold open at once (per process).' },
  STREAMS_PER_ORGANIZATION: { group: 'http', text: 'Server-sent-event streams one organization may hold open at once (per process).' },
  OPS_PORT: { group: 'ops', text: 'Port of the operations listener (/healthz, /readyz, /metrics) of any process kind. Unset: `start` and `serve` answer them on PORT; `project` and `work` take an ephemeral port they log (set one in production).' },
  OPS_HOST: { group: 'ops', text: 'Address of the operations listener (loopback by default: expose it deliberately).' },
  METRICS_TOKEN: { group: 'ops', text: 'Bearer token (16+ characters) /metrics and /readyz require. Unset: they answer only callers on the machine itself.' },
  SHUTDOWN_TIMEOUT_MS: { group: 'ops', text: 'How long a process may take to stop after SIGTERM before it exits anyway (exit 1).' },
  OVERDUE_GRACE_DAYS: { group: 'service', text: 'Days past an invoice\'s due date before the overdue worker suspends the organization.' },
  ATTACHMENT_RETENTION_DAYS: { group: 'service', text: 'Days a removed attachment\'s file is kept before the worker deletes it.' },
  SANDBOX_WEBHOOK_SECRET: { group: 'service', text: 'HMAC secret (16+ characters) of the sandbox payment provider\'s notifications. Required outside development.' },
  NODE_ENV: { group: 'service', text: '`production` applies the production rules even on a loopback HOST.' },
  VEHICLE_DATA_PROVIDER: { group: 'service', text: 'The vehicle-data provider (sandbox).' },
  VEHICLE_DATA_DECODE_DELAY_MS: { group: 'service', text: 'Sandbox: how long a registration decode takes.' },
  VEHICLE_DATA_TREE_DELAY_MS: { group: 'service', text: 'Sandbox: how long a parts tree takes.' },
  VEHICLE_DATA_ENRICH_DELAY_MS: { group: 'service', text: 'Sandbox: how long an enrichment takes.' },
  WEBHOOK_HTTP_LOOPBACK: { group: 'service', text: 'allow or deny plain-http webhook endpoints on loopback addresses. Unset: allowed in development only.' },
  WEBHOOK_TIMEOUT_MS: { group: 'service', text: 'How long one webhook delivery attempt may take before it counts as failed.' },
  WEBHOOK_PASS_WAIT_MS: { group: 'service', text: 'How long a webhook worker pass waits for the deliveries it started (slower ones go on in the background).' },
  WEBHOOK_RETENTION_DAYS: { group: 'service', text: 'Days a delivered webhook delivery and its attempts stay listed (billing.webhook-deliveries.list); the worker deletes older ones hourly. Deliveries still pending or failing are kept.' },
  INVOICE_SELLER_NAME: { group: 'service', text: 'The seller\'s legal name printed on invoice, credit note and receipt PDFs.' },
  INVOICE_SELLER_ADDRESS: { group: 'service', text: 'The seller\'s address on the PDFs, lines separated by `|`.' },
  INVOICE_PAYMENT_INSTRUCTIONS: { group: 'service', text: 'Payment instructions printed on invoice PDFs and in invoice emails, above the payment link.' },
  INVOICE_RETENTION_YEARS: { group: 'service', text: 'Years an erased customer\'s invoice particulars (legal name, address, tax id) are kept after its last issued invoice, as VAT law requires (6 for the UK; set 10 for e.g. Germany or France); then a worker erases them.' },
  SMTP_URL: { group: 'service', text: 'smtp:// or smtps:// URL of the mail relay customer emails go through. Unset: messages go to the console\'s Outbox and are not sent.' },
  EMAIL_FROM: { group: 'service', text: 'The From address of customer emails.' },
  EMAIL_REMINDER_DAYS: { group: 'service', text: 'Days relative to an open invoice\'s due date on which a reminder is emailed, comma-separated (-3 = three days before).' },
  ASSEMBLY_SUBSCRIBE_RETENTION: { group: 'service', text: 'Completed searches kept per organization for assemblies.subscribe.stream replays.' },
};

/** The variables of some groups, in table order. */
export function variablesOf(...groups: EnvGroup[]): EnvName[] {
  return (Object.keys(ENV_VARIABLES) as EnvName[]).filter((n) => groups.includes(ENV_VARIABLES[n].group));
}

/** The help text listing `names`: what a subcommand reads. */
export function envHelp(names: EnvName[], heading = 'Environment variables'): string {
  const width = Math.max(...names.map((n) => n.length));
  return `\n${heading} (see docs/operations.md, Configuration reference):\n${names.map((n) => `  ${n.padEnd(width)}  ${ENV_VARIABLES[n].text}`).join('\n')}\n`;
}

const GROUP_TITLES: Record<EnvGroup, string> = {
  database: 'Database, event log and logs (every command)',
  objects: 'Object storage (attachments, imports)',
  http: 'HTTP (`start`, `serve`)',
  ops: 'Operations listener and shutdown (every long-running process)',
  service: 'Behaviour (`start`, `serve`, `work`)',
};

/** The configuration reference of docs/operations.md, made from the schema (defaults) and this table (meanings). */
export function configReference(): string {
  const defaults = envDefaults();
  const shown = (v: unknown) => (v === undefined || (Array.isArray(v) && v.length === 0) ? '(unset)' : `\`${Array.isArray(v) ? v.join(',') : String(v)}\``);
  const sections = (Object.keys(GROUP_TITLES) as EnvGroup[]).map((g) => {
    const rows = variablesOf(g).map((n) => `| \`${n}\` | ${shown(defaults[n])} | ${ENV_VARIABLES[n].text.replace(/\|/g, '\\|')} |`);
    return `### ${GROUP_TITLES[g]}\n\n| Variable | Default | Meaning |\n|---|---|---|\n${rows.join('\n')}\n`;
  });
  return `<!-- generated from src/config.ts and src/config-reference.ts by test/docs/configuration-reference.test.ts (UPDATE_DOCS=1); the test fails when it is stale -->\n\n${sections.join('\n')}`;
}
