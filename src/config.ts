// Environment -> typed configuration. One zod schema; a bad value stops start-up naming the variable.
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

const optionalUrl = z.url().optional();

/** The sandbox provider's notification secret when SANDBOX_WEBHOOK_SECRET is unset: published in this file, so for development only. */
export const DEVELOPMENT_WEBHOOK_SECRET = 'sandbox-webhook-secret-not-for-production';

const EnvSchema = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  EVENT_STORE: z.string().default('postgres').superRefine((v, ctx) => {
    const problem = eventStoreProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  OBJECT_STORE: z.string().optional().superRefine((v, ctx) => {
    const problem = v === undefined ? null : objectStoreProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  OBJECT_URL_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  S3_ENDPOINT: optionalUrl,
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  AWS_SESSION_TOKEN: z.string().min(1).optional(),
  DATA_DIR: z.string().default('./data'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // Issue 30: every process kind can be watched; `project` and `work` have no other port.
  OPS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  OPS_HOST: z.string().default('127.0.0.1'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(1000).default(20),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  RATE_LIMIT_LOGIN_PER_ACCOUNT: z.coerce.number().int().min(1).max(100_000).default(10),
  RATE_LIMIT_LOGIN_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(50),
  RATE_LIMIT_CLIENT_SECRET: z.coerce.number().int().min(1).max(100_000).default(10),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  // Issue 25: caps on what one organization or token can hold or ask for (a prepare asks for up to 10 URLs at once).
  RATE_LIMIT_UPLOAD_URLS_PER_MINUTE: z.coerce.number().int().min(10).max(100_000).default(60),
  STREAMS_PER_TOKEN: z.coerce.number().int().min(1).max(100_000).default(20),
  STREAMS_PER_ORGANIZATION: z.coerce.number().int().min(1).max(1_000_000).default(100),
  TRUST_PROXY: z.string().optional().transform((v, ctx) => {
    const parsed = parseTrustProxy(v);
    if (typeof parsed === 'string') {
      ctx.addIssue({ code: 'custom', message: parsed });
      return z.NEVER;
    }
    return parsed;
  }),
  BASE_URL: optionalUrl,
  INTEGRATIONS_URL: optionalUrl,
  APP_URL: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(24 * 30),
  PROJECTION_WAIT_MS: z.coerce.number().int().min(10).max(60_000).default(5_000),
  OVERDUE_GRACE_DAYS: z.coerce.number().int().min(0).max(365).default(14),
  ATTACHMENT_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  // Issue 32: how long an erased customer's invoice details (legal name, address, VAT number) are kept after its last issued invoice.
  INVOICE_RETENTION_YEARS: z.coerce.number().int().min(0).max(30).default(6),
  SANDBOX_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  NODE_ENV: z.string().optional(),
  // Assemblies (issue 14): the vehicle-data provider and the subscribe stream's history.
  VEHICLE_DATA_PROVIDER: z.enum(['sandbox']).default('sandbox'),
  VEHICLE_DATA_DECODE_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(500),
  VEHICLE_DATA_TREE_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(2_000),
  VEHICLE_DATA_ENRICH_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(3_000),
  ASSEMBLY_SUBSCRIBE_RETENTION: z.coerce.number().int().min(1).max(10_000_000).default(100_000),
  // Issue 28: who issues the documents (PDF invoices, credit notes, receipts) and how customers' emails leave.
  INVOICE_SELLER_NAME: z.string().max(200).default('Core Billing Ltd'),
  INVOICE_SELLER_ADDRESS: z.string().max(500).default('1 Example Street | London | EC1A 1AA | GB'),
  INVOICE_PAYMENT_INSTRUCTIONS: z.string().max(1000).default('Pay online at the payment link below, or by bank transfer quoting the invoice number.'),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  EMAIL_FROM: z.string().min(3).max(200).default('billing@localhost'),
  EMAIL_REMINDER_DAYS: z.string().default('-3,0,3,7,14').transform((v, ctx) => {
    const days = parseReminderDays(v);
    if (typeof days === 'string') {
      ctx.addIssue({ code: 'custom', message: days });
      return z.NEVER;
    }
    return days;
  }),
  // Outbound webhooks (issue 29): plain http endpoints only on loopback, and only where allowed (default: in development).
  WEBHOOK_HTTP_LOOPBACK: z.enum(['allow', 'deny']).optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_PASS_WAIT_MS: z.coerce.number().int().min(10).max(60_000).default(2_000),
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
}).superRefine((e, ctx) => {
  // Anyone can sign notifications with the published default: outside development it would let them record payments.
  if (isDevelopment(e.HOST, e.NODE_ENV)) return;
  if (e.SANDBOX_WEBHOOK_SECRET === undefined)
    ctx.addIssue({ code: 'custom', path: ['SANDBOX_WEBHOOK_SECRET'], message: 'must be set outside development (HOST is not a loopback address, or NODE_ENV=production): the default is published; use 16+ random characters' });
  else if (e.SANDBOX_WEBHOOK_SECRET === DEVELOPMENT_WEBHOOK_SECRET)
    ctx.addIssue({ code: 'custom', path: ['SANDBOX_WEBHOOK_SECRET'], message: 'is the published development default; set a secret of your own outside development' });
  // `when`: checked even when other variables are bad, so every bad variable is named at once.
}, { when: (payload) => !payload.issues.some((i) => ['HOST', 'NODE_ENV', 'SANDBOX_WEBHOOK_SECRET'].includes(String(i.path?.[0]))) });

/** The name of every environment variable the service reads. */
export type EnvName = keyof typeof EnvSchema.shape;

/** Every variable with its default (undefined: none), straight from the schema: the configuration reference is made from it. */
export function envDefaults(): Record<EnvName, unknown> {
  const shape = EnvSchema.shape;
  return Object.fromEntries(Object.entries(shape).map(([name, schema]) => {
    const parsed = (schema as z.ZodType).safeParse(undefined);
    return [name, parsed.success ? parsed.data : undefined];
  })) as Record<EnvName, unknown>;
}

/** Development: listening on a loopback address only and NODE_ENV is not production; elsewhere secrets must be the operator's own. */
export function isDevelopment(host: string, nodeEnv: string | undefined): boolean {
  const loopback = host === 'localhost' || host === '::1' || host === '[::1]' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(host);
  return loopback && nodeEnv !== 'production';
}

/** The service's typed configuration. */
export interface Config {
  databaseUrl?: string;
  /** EVENT_STORE as given: `postgres` or a connection string. */
  eventStore: string;
  /** Where the event log lives, parsed from EVENT_STORE. */
  eventLog: EventLogSetting;
  objectStore: string;
  /** Where objects live, parsed from OBJECT_STORE (+ S3_ENDPOINT). */
  objectStorage: ObjectStoreSetting;
  /** S3 keys when AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set; else the SDK's default chain (profiles, instance roles). */
  s3Credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Secret of the file store's signed URLs (else a key file in the object directory). */
  objectUrlSecret?: string;
  dataDir: string;
  port: number;
  host: string;
  /** Bearer token that /metrics and /readyz require; unset: they answer only callers on this machine (loopback). */
  metricsToken?: string;
  /** The operations listener (/healthz, /readyz, /metrics) of any process kind; unset: `start` and `serve` answer them on PORT, `project` and `work` on an ephemeral port they log. */
  opsPort?: number;
  opsHost: string;
  /** Most PostgreSQL connections this process opens (docs/operations.md: processes x this <= max_connections - reserve). */
  databasePoolMax: number;
  shutdownTimeoutMs: number;
  /** Failed attempts allowed per window before 429: per account and per source address (sign-in), per client (secret); upload URLs per organization per minute. */
  rateLimits: { loginPerAccount: number; loginPerAddress: number; clientSecret: number; windowSeconds: number; uploadUrlsPerMinute: number };
  /** Server-sent-event streams one token, and one organization, may hold open at once (per process). */
  streamCaps: { perToken: number; perOrganization: number };
  /** The proxies whose X-Forwarded-For is believed (express `trust proxy` values); empty: none, the peer address counts. */
  trustProxy: string[];
  baseUrl: string;
  integrationsUrl: string;
  appUrl: string;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  sessionTtlHours: number;
  projectionWaitMs: number;
  overdueGraceDays: number;
  /** Days a removed attachment's file is kept (out of reach of its URLs) before the worker deletes it. */
  attachmentRetentionDays: number;
  /** Years an erased customer's invoice details are kept after its last issued invoice (UK VAT: 6; set 10 where EU law asks more). */
  invoiceRetentionYears: number;
  /** HMAC secret of the sandbox payment provider's notifications. */
  sandboxWebhookSecret: string;
  /** The secret is the published development default (allowed in development only): the service warns at start. */
  sandboxWebhookSecretIsDefault: boolean;
  /** The vehicle-data provider and its sandbox delays (from the time the work was asked for). */
  vehicleData: { provider: 'sandbox'; decodeDelayMs: number; treeDelayMs: number; enrichDelayMs: number };
  /** Completed searches kept per organization for assemblies.subscribe.stream replays. */
  assemblySubscribeRetention: number;
  /** The seller printed on invoices, credit notes and receipts, and the payment instructions of invoices. */
  seller: { name: string; address: string[]; paymentInstructions: string };
  /** How customer emails leave: SMTP when SMTP_URL is set, else the outbox the console shows; the From address; reminder days relative to the due date. */
  email: { smtpUrl?: string; from: string; reminderDays: number[] };
  /**
   * Outbound webhooks: plain http to loopback allowed (development, tests); how long one delivery may take; how long a worker pass
   * waits for the deliveries it started (slower ones go on in the background); how long delivered deliveries and their attempts are kept.
   */
  webhooks: { allowHttpLoopback: boolean; timeoutMs: number; passWaitMs: number; retentionMs: number };
}

/** Thrown when an environment variable is invalid; the CLI prints it without a stack trace. */
export class ConfigError extends Error {}

/** Parses the environment into a Config, naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable (`PORT=`) means unset, not "0" or "": otherwise PORT= would pick a random port.
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const local = `http://localhost:${e.PORT}`;
  const baseUrl = stripSlash(e.BASE_URL ?? local);
  const objectStore = e.OBJECT_STORE ?? `file:${path.join(dataDir, 'objects')}`;
  return {
    databaseUrl: e.DATABASE_URL,
    eventStore: e.EVENT_STORE,
    eventLog: parseEventStore(e.EVENT_STORE),
    objectStore,
    objectStorage: parseObjectStore(objectStore, e.S3_ENDPOINT),
    objectUrlSecret: e.OBJECT_URL_SECRET,
    s3Credentials: e.AWS_ACCESS_KEY_ID && e.AWS_SECRET_ACCESS_KEY ? { accessKeyId: e.AWS_ACCESS_KEY_ID, secretAccessKey: e.AWS_SECRET_ACCESS_KEY, sessionToken: e.AWS_SESSION_TOKEN } : undefined,
    dataDir,
    port: e.PORT,
    host: e.HOST,
    metricsToken: e.METRICS_TOKEN,
    opsPort: e.OPS_PORT,
    opsHost: e.OPS_HOST,
    databasePoolMax: e.DATABASE_POOL_MAX,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    rateLimits: {
      loginPerAccount: e.RATE_LIMIT_LOGIN_PER_ACCOUNT,
      loginPerAddress: e.RATE_LIMIT_LOGIN_PER_ADDRESS,
      clientSecret: e.RATE_LIMIT_CLIENT_SECRET,
      windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
      uploadUrlsPerMinute: e.RATE_LIMIT_UPLOAD_URLS_PER_MINUTE,
    },
    streamCaps: { perToken: e.STREAMS_PER_TOKEN, perOrganization: e.STREAMS_PER_ORGANIZATION },
    trustProxy: e.TRUST_PROXY,
    baseUrl,
    integrationsUrl: stripSlash(e.INTEGRATIONS_URL ?? baseUrl),
    appUrl: stripSlash(e.APP_URL ?? baseUrl),
    logLevel: e.LOG_LEVEL,
    sessionTtlHours: e.SESSION_TTL_HOURS,
    projectionWaitMs: e.PROJECTION_WAIT_MS,
    overdueGraceDays: e.OVERDUE_GRACE_DAYS,
    attachmentRetentionDays: e.ATTACHMENT_RETENTION_DAYS,
    invoiceRetentionYears: e.INVOICE_RETENTION_YEARS,
    sandboxWebhookSecret: e.SANDBOX_WEBHOOK_SECRET ?? DEVELOPMENT_WEBHOOK_SECRET,
    sandboxWebhookSecretIsDefault: (e.SANDBOX_WEBHOOK_SECRET ?? DEVELOPMENT_WEBHOOK_SECRET) === DEVELOPMENT_WEBHOOK_SECRET,
    vehicleData: { provider: e.VEHICLE_DATA_PROVIDER, decodeDelayMs: e.VEHICLE_DATA_DECODE_DELAY_MS, treeDelayMs: e.VEHICLE_DATA_TREE_DELAY_MS, enrichDelayMs: e.VEHICLE_DATA_ENRICH_DELAY_MS },
    assemblySubscribeRetention: e.ASSEMBLY_SUBSCRIBE_RETENTION,
    seller: { name: e.INVOICE_SELLER_NAME, address: e.INVOICE_SELLER_ADDRESS.split('|').map((l) => l.trim()).filter(Boolean), paymentInstructions: e.INVOICE_PAYMENT_INSTRUCTIONS },
    email: { smtpUrl: e.SMTP_URL, from: e.EMAIL_FROM, reminderDays: e.EMAIL_REMINDER_DAYS },
    webhooks: { allowHttpLoopback: (e.WEBHOOK_HTTP_LOOPBACK ?? (isDevelopment(e.HOST, e.NODE_ENV) ? 'allow' : 'deny')) === 'allow', timeoutMs: e.WEBHOOK_TIMEOUT_MS, passWaitMs: e.WEBHOOK_PASS_WAIT_MS, retentionMs: e.WEBHOOK_RETENTION_DAYS * 86_400_000 },
  };
}

/** EMAIL_REMINDER_DAYS: comma-separated whole days relative to the due date (-3 = three days before), or a problem as text. */
export function parseReminderDays(value: string): number[] | string {
  const parts = value.split(',').map((v) => v.trim()).filter(Boolean);
  if (!parts.every((p) => /^-?\d{1,3}$/.test(p))) return 'must be comma-separated whole days relative to the due date, e.g. -3,0,3,7,14';
  return [...new Set(parts.map(Number))].sort((a, b) => a - b);
}

/** express's names for address ranges it can trust as proxies. */
const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: comma-separated proxy addresses, CIDR ranges (`10.0.0.0/8`, `fd00::/8`) or the names loopback, linklocal,
 * uniquelocal; unset or empty: none. A problem is returned as text. `true` and hop counts are refused on purpose: they
 * would believe an address any client can write.
 */
export function parseTrustProxy(value: string | undefined): string[] | string {
  const entries = (value ?? '').split(',').map((v) => v.trim()).filter(Boolean);
  for (const entry of entries) {
    if (PROXY_NAMES.includes(entry)) continue;
    const [address = '', bits, ...rest] = entry.split('/');
    const version = isIP(address);
    const max = version === 4 ? 32 : 128;
    if (!version || rest.length || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max)))
      return `"${entry}" is not a proxy address, CIDR range or one of ${PROXY_NAMES.join(', ')} (comma-separated; e.g. TRUST_PROXY=loopback or 10.0.0.0/8)`;
  }
  return entries;
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Where the event log lives: the Postgres/PGlite tables, or an EventStoreDB (KurrentDB) server. */
export type EventLogSetting =
  | { kind: 'postgres' }
  | {
      kind: 'esdb';
      /** For `@eventstore/db-client`: `kurrentdb://` is rewritten to `esdb://`, which that client reads. */
      connectionString: string;
      /** As the operator wrote it, with any password replaced by `***`: safe for logs and start-up lines. */
      display: string;
    };

const SCHEMES: Record<string, string> = { esdb: 'esdb', 'esdb+discover': 'esdb+discover', kurrentdb: 'esdb', 'kurrentdb+discover': 'esdb+discover' };
const BOOLEAN_OPTIONS = ['tls', 'tlsverifycert', 'throwonappendfailure'];
const INTEGER_OPTIONS = ['maxdiscoverattempts', 'defaultdeadline', 'discoveryinterval', 'gossiptimeout', 'keepaliveinterval', 'keepalivetimeout'];
const TEXT_OPTIONS = ['connectionname', 'tlscafile', 'usercertfile', 'userkeyfile'];
const NODE_PREFERENCES = ['leader', 'follower', 'random', 'readonlyreplica'];
const flat = (s: string) => s.trim().toLowerCase().replace(/[_-]/g, '');

/** What is wrong with an EVENT_STORE value, or null when it is usable (the checks of the client's own connection-string parser). */
export function eventStoreProblem(value: string): string | null {
  if (value === 'postgres') return null;
  const m = /^([a-z+]+):\/\/(?:([^:@/?]+):([^@/?]+)@)?([^/?]*)\/?(?:\?(.*))?$/i.exec(value.trim());
  const [, scheme = '', , , hostList = '', query = ''] = m ?? [];
  if (!m || !SCHEMES[scheme.toLowerCase()]) return 'must be "postgres" or an esdb://, esdb+discover://, kurrentdb:// or kurrentdb+discover:// connection string';
  const hosts = hostList.split(',');
  for (const host of hosts) {
    const hm = /^([^:\s]+)(?::(\d{1,5}))?$/.exec(host);
    if (!hm) return `"${host}" is not host[:port] (e.g. esdb://127.0.0.1:2113?tls=false)`;
    if (hm[2] !== undefined && Number(hm[2]) > 65535) return `port ${hm[2]} is out of range`;
  }
  for (const pair of query.split('&').filter(Boolean)) {
    const [key = '', val = '', ...rest] = pair.split('=');
    const k = flat(key);
    if (rest.length || !val) return `option "${pair}" is not key=value`;
    if (BOOLEAN_OPTIONS.includes(k) && val !== 'true' && val !== 'false') return `option ${key} must be true or false`;
    else if (INTEGER_OPTIONS.includes(k) && !/^\d+$/.test(val)) return `option ${key} must be a whole number`;
    else if (k === 'nodepreference' && !NODE_PREFERENCES.includes(flat(val))) return `option nodePreference must be leader, follower, random or read_only_replica`;
    else if (![...BOOLEAN_OPTIONS, ...INTEGER_OPTIONS, ...TEXT_OPTIONS, 'nodepreference'].includes(k)) return `unknown option ${key}`;
  }
  return null;
}

/** Parses EVENT_STORE (already checked by eventStoreProblem) into where the log lives. */
export function parseEventStore(value: string): EventLogSetting {
  if (value === 'postgres') return { kind: 'postgres' };
  const problem = eventStoreProblem(value);
  if (problem) throw new ConfigError(`invalid configuration:\n  EVENT_STORE: ${problem}`);
  const trimmed = value.trim();
  const scheme = trimmed.slice(0, trimmed.indexOf('://'));
  const rest = trimmed.slice(scheme.length);
  return {
    kind: 'esdb',
    connectionString: `${SCHEMES[scheme.toLowerCase()]}${rest}`,
    display: trimmed.replace(/^([a-z+]+:\/\/[^:@/?]+:)[^@/?]+@/i, '$1***@'),
  };
}

/** Where objects live: a directory served by this service, or an S3 bucket (AWS, MinIO, Ceph, any S3-compatible endpoint). */
export type ObjectStoreSetting = { kind: 'file'; dir: string } | { kind: 's3'; bucket: string; prefix: string; endpoint?: string };

/** What is wrong with an OBJECT_STORE value, or null when it is usable. */
export function objectStoreProblem(value: string): string | null {
  if (value.startsWith('file:')) return value.length > 'file:'.length ? null : 'file: needs a directory (e.g. file:./data/objects)';
  if (value.startsWith('s3://')) return /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[^\s]*)?$/.test(value) ? null : 'is not s3://bucket[/prefix] with a valid bucket name';
  return 'must be file:<directory> or s3://bucket[/prefix]';
}

/** Parses OBJECT_STORE (already checked by objectStoreProblem). */
export function parseObjectStore(value: string, endpoint?: string): ObjectStoreSetting {
  const problem = objectStoreProblem(value);
  if (problem) throw new ConfigError(`invalid configuration:\n  OBJECT_STORE: ${problem}`);
  if (value.startsWith('file:')) return { kind: 'file', dir: path.resolve(value.slice('file:'.length).replace(/^\/\/(?=\/)/, '')) };
  const [bucket = '', ...rest] = value.slice('s3://'.length).split('/');
  return { kind: 's3', bucket, prefix: rest.join('/').replace(/\/+$/, ''), endpoint };
}
