// What `npm run deploy` deploys, as data: the Cloudflare resources the four wrangler configs name, the
// order of the Workers, the secrets each needs, and the production config of each Worker. The committed
// configs stay the development ones (`npm start`, the tests); a production config is generated from them
// with the real resource ids, the production vars of the settings file (deploy/production.json), and the
// services closed to the internet (no workers.dev URL: only the gateway may reach them, since they trust
// the X-* headers it sets). Nothing here talks to Cloudflare (scripts/deploy.mjs does).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { experimental_readRawConfig } from "wrangler";
import { contentGroupProblems } from "./databases.mjs";
import { signingKey } from "./dev-vars.mjs";
import { root, services } from "./workers.mjs";

/** Services before the gateway; among the services, the order of their deploys (see stubs in deploy.mjs). */
export const DEPLOY_ORDER = /** @type {const} */ (["identity", "content", "sites", "gateway"]);

/** Where the generated production configs are written (git-ignored). */
export const GENERATED_DIR = path.join(root, ".wrangler/production");

export const DEFAULT_SETTINGS = path.join(root, "deploy/production.json");
export const EXAMPLE_SETTINGS = path.join(root, "deploy/production.example.json");

const random = () => randomBytes(32).toString("base64url");

/**
 * Secrets per Worker: `generated` ones are made once when the Worker has none by that name (and never
 * again: regenerating API_KEY_PEPPER would void every API key, JWT_SIGNING_KEYS every session);
 * `provided` ones come from the deployer's environment when set (each run uploads them, so rotating one
 * is setting it and deploying again); absent, the feature they open fails closed and shows in /metrics.
 */
export const SECRETS = {
  gateway: { generated: {}, provided: [] },
  identity: {
    generated: {
      JWT_SIGNING_KEYS: () => {
        const stamp = new Date().toISOString().slice(0, 10);
        return JSON.stringify({ current: signingKey(`${stamp}-a`), next: signingKey(`${stamp}-b`) });
      },
      OTP_PEPPER: random,
      SSO_SECRET_KEY: random,
    },
    provided: ["MAIL_PROVIDER_TOKEN", "SMS_PROVIDER_TOKEN"],
  },
  content: {
    generated: { API_KEY_PEPPER: random, CURSOR_SECRET: random, WEBHOOK_SECRET_KEY: random },
    provided: ["CACHE_PURGE_TOKEN", "INDEXNOW_KEY"],
  },
  sites: { generated: {}, provided: ["PAGE_PURGE_TOKEN"] },
};

/**
 * Secrets the Workers share, one value on each of them: the gateway's HMAC over the edge headers, which
 * every service verifies (src/lib/edge-trust.ts). Cloudflare never reveals a secret's value, so a Worker
 * that lacks one cannot be given the others' copy: then one new value goes to all of them together (the
 * services before the gateway, so dashboard requests fail closed, as anonymous, for the seconds between
 * the first service's deploy and the gateway's).
 */
export const SHARED_SECRETS = {
  EDGE_HMAC_SECRET: { workers: ["gateway", "identity", "content", "sites"], make: random },
};

/**
 * The shared secrets to upload, per Worker, given the secret names each has (null: not deployed yet):
 * nothing when every Worker has it, else one fresh value for every Worker that shares it.
 */
export function sharedSecretsToUpload(existingOf) {
  const out = Object.fromEntries(DEPLOY_ORDER.map((name) => [name, {}]));
  for (const [key, { workers, make }] of Object.entries(SHARED_SECRETS)) {
    if (workers.every((name) => (existingOf[name] ?? []).includes(key))) continue;
    const value = make();
    for (const name of workers) out[name][key] = value;
  }
  return out;
}

/** Vars production must set (the committed values are local addresses); the settings file holds them. */
export const REQUIRED_VARS = {
  gateway: ["TOKEN_ISSUER", "CORS_ORIGINS"],
  identity: ["ISSUER", "WEBAUTHN_RP_ID", "WEBAUTHN_ORIGIN", "MAIL_FROM"],
  content: ["MEDIA_PUBLIC_BASE", "PLATFORM_DOMAIN", "CACHE_PURGE_URL"],
  sites: ["PLATFORM_DOMAIN", "MEDIA_PUBLIC_BASE", "PLATFORM_IPV4", "PLATFORM_IPV6", "PAGE_PURGE_URL"],
};

/** The e-mail providers identity speaks (src/identity/messaging/providers/, docs/decisions/mail.md). */
export const MAIL_PROVIDERS = ["resend", "postmark", "ses"];
/** The SMS providers identity speaks. */
export const SMS_PROVIDERS = ["twilio"];

/**
 * Problems of identity's mail and SMS settings. E-mail is required (sign-up, codes, resets): a provider
 * must be named (`MAIL_PROVIDER`; a `MAIL_PROVIDER_URL` alone is a Resend-format endpoint, as identity
 * reads it), and SES needs its region. SMS is optional (without a provider the phone routes answer 501
 * SMS_DISABLED), but a provider that is named must be one identity speaks, with what it needs. The
 * provider tokens are secrets from the deployer's environment (SECRETS.identity.provided).
 */
export function mailProblems(vars) {
  const problems = [];
  const mail = String(vars.MAIL_PROVIDER ?? "")
    .trim()
    .toLowerCase();
  if (!mail && !vars.MAIL_PROVIDER_URL) {
    problems.push(
      `identity: no e-mail provider: vars.MAIL_PROVIDER is required (${MAIL_PROVIDERS.join(", ")})`,
    );
  } else if (mail && !MAIL_PROVIDERS.includes(mail)) {
    problems.push(
      `identity: MAIL_PROVIDER = ${vars.MAIL_PROVIDER} is not one of ${MAIL_PROVIDERS.join(", ")}`,
    );
  } else if (mail === "ses" && !vars.MAIL_PROVIDER_REGION) {
    problems.push("identity: vars.MAIL_PROVIDER_REGION is required with MAIL_PROVIDER = ses");
  }
  const sms = String(vars.SMS_PROVIDER ?? "")
    .trim()
    .toLowerCase();
  if (sms && !SMS_PROVIDERS.includes(sms)) {
    problems.push(`identity: SMS_PROVIDER = ${vars.SMS_PROVIDER} is not one of ${SMS_PROVIDERS.join(", ")}`);
  } else if (sms === "twilio") {
    for (const key of ["TWILIO_ACCOUNT_SID", "SMS_FROM"]) {
      if (!vars[key]) problems.push(`identity: vars.${key} is required with SMS_PROVIDER = twilio`);
    }
  }
  return problems;
}

/** Vars that switch on development behaviour: never in a committed config, never deployed. */
export const DEV_ONLY_VARS = /^DEV_|^TEST_/;

/** A value that only makes sense on a developer's machine. */
const LOCAL_VALUE = /localhost|127\.0\.0\.1|(^|[,\s])::1($|[,\s])|\.local(host)?\b/i;

/**
 * A Worker's committed config, or the file `configs[name]` names instead (tests: a config with a group
 * added, docs/operations.md "Adding a site group").
 */
export function readConfig(name, configs = {}) {
  const file = configs[name] ?? path.join(root, services[name].config);
  return { file, raw: experimental_readRawConfig({ config: file }).rawConfig };
}

/**
 * Content's site groups' databases (docs/decisions/site-groups.md): the D1 databases of content's config
 * that run migrations/content, in order. Read through D1 sessions, so read replication is on for each.
 */
export function contentGroupDatabases(configs = {}) {
  return (readConfig("content", configs).raw.d1_databases ?? [])
    .filter((db) => /(^|\/)migrations\/content$/.test(db.migrations_dir ?? ""))
    .map((db) => db.database_name);
}

/** What is wrong with content's groups in its config (every listed group bound, every bound one listed). */
export function configProblems(configs = {}) {
  return contentGroupProblems(readFileSync(readConfig("content", configs).file, "utf8"));
}

export function readSettings(file) {
  return JSON.parse(readFileSync(file, "utf8"));
}

/** Every Cloudflare resource the configs name, deduplicated: what must exist before a deploy. */
export function resources(configs = {}) {
  const d1 = new Set();
  const kv = new Set();
  const queues = new Set();
  const r2 = new Set();
  for (const name of DEPLOY_ORDER) {
    const { raw } = readConfig(name, configs);
    for (const db of raw.d1_databases ?? []) d1.add(db.database_name);
    // In the committed configs a namespace's id is its name (the local store's key); production looks
    // the namespace up by that title.
    for (const ns of raw.kv_namespaces ?? []) kv.add(ns.id);
    for (const p of raw.queues?.producers ?? []) queues.add(p.queue);
    for (const c of raw.queues?.consumers ?? []) {
      queues.add(c.queue);
      if (c.dead_letter_queue) queues.add(c.dead_letter_queue);
    }
    for (const b of raw.r2_buckets ?? []) r2.add(b.bucket_name);
  }
  return { d1: [...d1], kv: [...kv], queues: [...queues], r2: [...r2] };
}

/** The Workers `name` binds over service bindings. */
export function serviceTargets(name, configs = {}) {
  return (readConfig(name, configs).raw.services ?? []).map((s) => s.service);
}

/** A value copied from deploy/production.example.json unchanged. */
const EXAMPLE_VALUE = /example\.(com|org|net)/i;

/**
 * Problems of a settings file for a deploy: missing production vars, development-only vars, local or
 * example values (in the vars and in the gateway's routes). Every one refuses the real deploy and its dry
 * run alike (scripts/deploy.mjs, `refuseUnready`); `allowExample` is for tests of the configs only.
 */
export function settingsProblems(settings, { allowExample = false } = {}) {
  const problems = [];
  for (const [i, route] of (settings.workers?.gateway?.routes ?? []).entries()) {
    const pattern = typeof route === "string" ? route : route?.pattern;
    if (!allowExample && EXAMPLE_VALUE.test(String(pattern))) {
      problems.push(`gateway: routes[${i}] = ${pattern} is the example's value`);
    }
    if (LOCAL_VALUE.test(String(pattern)))
      problems.push(`gateway: routes[${i}] = ${pattern} is a local address`);
  }
  for (const name of DEPLOY_ORDER) {
    const vars = settings.workers?.[name]?.vars ?? {};
    for (const key of REQUIRED_VARS[name]) {
      if (!vars[key]) problems.push(`${name}: vars.${key} is required`);
    }
    if (name === "identity") problems.push(...mailProblems(vars));
    for (const [key, value] of Object.entries(vars)) {
      if (DEV_ONLY_VARS.test(key)) problems.push(`${name}: ${key} is development-only`);
      if (LOCAL_VALUE.test(String(value))) problems.push(`${name}: ${key} = ${value} is a local address`);
      if (!allowExample && EXAMPLE_VALUE.test(String(value))) {
        problems.push(`${name}: ${key} = ${value} is the example's value`);
      }
    }
  }
  return problems;
}

/**
 * The production config of one Worker, as an object for a wrangler.json written into `outDir`: the
 * committed config with paths made relative to `outDir`, the resource ids of `ids` ({ d1: {name: uuid},
 * kv: {title: id} }), the settings' vars over the committed ones, and public reach: the services never
 * on workers.dev nor preview URLs; the gateway on the settings' routes (workers.dev only without routes).
 */
export function productionConfig(name, { settings, ids, outDir, configs = {} }) {
  const { file, raw } = readConfig(name, configs);
  const here = path.dirname(file);
  const rel = (p) => path.relative(outDir, path.resolve(here, p));
  const own = settings.workers?.[name] ?? {};
  const config = structuredClone(raw);
  config.main = rel(raw.main);
  // Every path of the config, not only `main`: the API reference's assets folder too.
  if (raw.assets?.directory) config.assets = { ...raw.assets, directory: rel(raw.assets.directory) };
  config.vars = { ...raw.vars, ...own.vars };
  // Content's TOKEN_ISSUER (/v1/mcp's resource and its tokens' issuer) is the gateway's, one value: issue 37.
  if (name === "content") config.vars.TOKEN_ISSUER = settings.workers?.gateway?.vars?.TOKEN_ISSUER;
  for (const key of Object.keys(config.vars)) {
    if (DEV_ONLY_VARS.test(key)) throw new Error(`${name}: ${key} must not be deployed`);
  }
  if (config.d1_databases) {
    config.d1_databases = config.d1_databases.map((db) => ({
      ...db,
      database_id: lookup(ids.d1, db.database_name, `D1 database ${db.database_name}`),
      migrations_dir: rel(db.migrations_dir),
    }));
  }
  if (config.kv_namespaces) {
    config.kv_namespaces = config.kv_namespaces.map((ns) => ({
      ...ns,
      id: lookup(ids.kv, ns.id, `KV namespace ${ns.id}`),
    }));
  }
  if (name === "gateway") {
    if (own.routes?.length) config.routes = own.routes;
    config.workers_dev = own.workers_dev ?? !own.routes?.length;
  } else {
    config.workers_dev = false;
    // The committed development patterns (any host) never deploy: content gets the public paths of the
    // gateway's own hosts, the rest nothing.
    delete config.routes;
    const publicRoutes = name === "content" ? contentRoutes(settings.workers?.gateway?.routes ?? []) : [];
    if (publicRoutes.length) config.routes = publicRoutes;
  }
  config.preview_urls = false;
  if (settings.account_id) config.account_id = settings.account_id;
  return config;
}

/** The paths of the public origin that content answers itself (workers/content/wrangler.toml `routes`). */
export const CONTENT_PUBLIC_PATHS = ["/v1/*", "/media/*"];

/**
 * Content's production routes: for every host of the gateway's routes (a custom domain or a route
 * pattern), one route per public path on that host, in the same zone. A route of a hostname takes
 * precedence over the custom domain of the same hostname (Cloudflare, Workers routes), so these paths
 * reach content and every other path the gateway. Without gateway routes (workers.dev) there is none: the
 * gateway forwards the public paths, as before.
 */
export function contentRoutes(gatewayRoutes) {
  const out = [];
  for (const route of gatewayRoutes) {
    const pattern = typeof route === "string" ? route : route.pattern;
    const host = pattern.split("/")[0];
    const zone =
      typeof route === "string"
        ? {}
        : route.zone_id
          ? { zone_id: route.zone_id }
          : route.zone_name
            ? { zone_name: route.zone_name }
            : {};
    for (const suffix of CONTENT_PUBLIC_PATHS) {
      const contentPattern = `${host}${suffix}`;
      out.push(Object.keys(zone).length ? { pattern: contentPattern, ...zone } : contentPattern);
    }
  }
  return out;
}

function lookup(map, key, what) {
  const value = map?.[key];
  if (!value) throw new Error(`${what} has no id (not created?)`);
  return value;
}

/** Placeholder ids for --dry-run and tests: every resource "exists". */
export function placeholderIds(configs = {}) {
  const { d1, kv } = resources(configs);
  const fake = (name) => `00000000${Buffer.from(name).toString("hex")}`.slice(-32);
  return {
    d1: Object.fromEntries(d1.map((n) => [n, fake(`d1-${n}`)])),
    kv: Object.fromEntries(kv.map((n) => [n, fake(`kv-${n}`)])),
  };
}

/** The generated secrets `name` still lacks, given the names it has; and the provided ones set in `env`. */
export function secretsToUpload(name, existing, env) {
  const out = {};
  const missing = [];
  for (const [key, make] of Object.entries(SECRETS[name].generated)) {
    if (!existing.includes(key)) out[key] = make();
  }
  for (const key of SECRETS[name].provided) {
    if (env[key]) out[key] = env[key];
    else if (!existing.includes(key)) missing.push(key);
  }
  return { secrets: out, missing };
}
