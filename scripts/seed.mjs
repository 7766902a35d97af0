// `npm run seed -- --json` or `-- --env` (with `npm start` or `npm run dev` running): the demo tenant,
// created through the gateway
// exactly as a user would. The first run signs up one demo owner (signup, the code from the dev outbox,
// TOTP enrolment, login), an organization and a site; every later run signs in as that same owner (its
// session, kept in a git-ignored state file, else password + TOTP), reuses its organization and site and
// its demo keys, and signs the developer in with a fresh session of their own (ACCESS_TOKEN,
// REFRESH_TOKEN). The keys' plaintext lives in the same state file (mode 0600) and is printed again from
// it, so a rerun for a fresh token never breaks a `pk_` key already embedded in a page; `--rotate-keys`
// (or keys that no longer work: revoked, or made with other scopes than the seed's) mints a new pair and
// revokes the earlier demo keys. So the seed runs any number of times without spending a signup
// (identity's per-client signup quota) or replaying a TOTP step.
// `--json`: the JSON alone on stdout; `--env`: `export` lines for `eval "$(npm run -s seed -- --env)"`.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TOTP } from "otpauth";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The demo owner of each platform address (credentials of a local, development-only account). */
export const DEMO_STATE_FILE = path.join(root, ".wrangler/state/demo-owner.json");
const TOTP_PERIOD_MS = 30_000;

// What the demo needs: writing and reading posts, media and SEO, analytics, bulk import and export. Never
// `leads:read` (personal data is opt-in, per key).
const DEMO_SECRET_SCOPES = [
  "posts:write",
  "posts:read",
  "post_types:read",
  "media:write",
  "media:read",
  "seo:write",
  "seo:read",
  "import",
  "export",
  "analytics:read",
];
// The public key reads what a public page shows, `<head>` data (seo:read) included.
const PUBLIC_SCOPES = ["posts:read", "post_types:read", "media:read", "seo:read"];
export const DEMO_ORIGINS = ["http://localhost:5173", "http://127.0.0.1:5173", "http://127.0.0.1:8787"];

/**
 * One JSON call to the platform at `base` (the seed's, the bench's): `body` an object (sent as JSON) or a
 * string (sent as is); the parsed answer, or a CallError naming the status and the answer's text.
 */
export async function call(base, method, path, { body, token, headers = {} } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined || typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  if (!res.ok) throw new CallError(method, path, res.status, text, json);
  return json;
}

class CallError extends Error {
  constructor(method, path, status, text, body) {
    super(`${method} ${path} -> ${status}: ${text}`);
    this.status = status;
    this.code = body && typeof body === "object" ? body.code : undefined;
  }
}

async function latestCode(base, to, purpose) {
  for (let i = 0; i < 50; i++) {
    const { messages } = await call(base, "GET", `/api/v1/auth/__dev/outbox?to=${encodeURIComponent(to)}`);
    const message = messages.find((m) => m.purpose === purpose && m.code);
    if (message) return message.code;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${purpose} code for ${to} in the dev outbox`);
}

function totpOf(secret) {
  return new TOTP({ secret, digits: 6, period: 30, algorithm: "SHA1" });
}

const totpStep = (ms) => Math.floor(ms / TOTP_PERIOD_MS);

/**
 * A new verified owner with a confirmed TOTP factor, signed in with password + TOTP. `totp_step` is the
 * last step spent (identity refuses a step twice), so a later login knows which code is still good.
 */
async function signUpOwner(base) {
  const tag = randomBytes(4).toString("hex");
  const email = `owner-${tag}@demo.example`;
  const password = `Demo-${randomBytes(12).toString("base64url")}`;

  await call(base, "POST", "/api/v1/auth/signup", { body: { email, password } });
  const code = await latestCode(base, email, "email_verify");
  const verified = await call(base, "POST", "/api/v1/auth/email/verify/confirm", { body: { email, code } });

  const enrol = await call(base, "POST", "/api/v1/auth/mfa/totp", { token: verified.access_token, body: {} });
  const totp = totpOf(enrol.secret);
  await call(base, "POST", "/api/v1/auth/mfa/totp/confirm", {
    token: verified.access_token,
    body: { code: totp.generate() },
  });

  // A fresh login with password and TOTP. The enrolment code's time step is spent (replay protection),
  // so the login uses the next step's code, which identity accepts within its drift window.
  const at = Date.now() + TOTP_PERIOD_MS;
  const session = await call(base, "POST", "/api/v1/auth/login", {
    body: { email, password, totp_code: totp.generate({ timestamp: at }) },
  });
  // The owner's byline: a person's posts through the dashboard routes are signed with the display name.
  await call(base, "PATCH", "/api/v1/auth/me", {
    token: session.access_token,
    body: { display_name: "Demo Owner" },
  });
  const owner = { id: session.user.id, email, password, totp_secret: enrol.secret };
  return { owner, session, totpStep: totpStep(at), tag };
}

async function createTenant(base, token, tag) {
  const org = await call(base, "POST", "/api/v1/auth/orgs", {
    token,
    body: { name: "Demo Org", slug: `demo-${tag}` },
  });
  const site = await call(base, "POST", "/api/v1/sites", {
    token,
    body: { org_id: org.id, name: "Demo Site", slug: `demo-${tag}`, default_language: "en" },
  });
  return { org: { id: org.id, slug: org.slug }, site: { id: site.id, slug: site.slug } };
}

const DEMO_KEY_NAMES = { secret: "demo secret key", public: "demo public key" };

async function createKeys(base, token, siteId) {
  const secret = await call(base, "POST", `/api/v1/sites/${siteId}/api-keys`, {
    token,
    body: { name: DEMO_KEY_NAMES.secret, kind: "secret", scopes: DEMO_SECRET_SCOPES },
  });
  const publicKey = await call(base, "POST", `/api/v1/sites/${siteId}/api-keys`, {
    token,
    body: {
      name: DEMO_KEY_NAMES.public,
      kind: "public",
      scopes: PUBLIC_SCOPES,
      allowed_origins: DEMO_ORIGINS,
      // Also a server's reads without an Origin (server-side rendering, a static build: README "Build on it").
      server_reads: true,
    },
  });
  return { secret: secret.key, public: publicKey.key, ids: [secret.id, publicKey.id] };
}

const sameSet = (a, b) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * The stored demo keys when both still work as the seed makes them: listed on the site (not revoked),
 * with the seed's scopes (and origins for the public key). Null otherwise: the caller mints a new pair.
 */
async function storedKeys(base, token, siteId, stored) {
  const keys = stored?.keys;
  if (!keys?.secret || !keys?.public || !keys?.ids) return null;
  const { items } = await call(base, "GET", `/api/v1/sites/${siteId}/api-keys`, { token });
  const byId = new Map(items.map((k) => [k.id, k]));
  const [secretRow, publicRow] = keys.ids.map((id) => byId.get(id));
  if (!secretRow || !publicRow) return null;
  if (!sameSet(secretRow.scopes, DEMO_SECRET_SCOPES) || !sameSet(publicRow.scopes, PUBLIC_SCOPES))
    return null;
  if (!sameSet(publicRow.allowed_origins, DEMO_ORIGINS) || publicRow.server_reads !== true) return null;
  return keys;
}

/**
 * Revokes the demo keys earlier runs made on the demo site (by their names, made by the demo owner),
 * keeping the ones just made: the site holds one demo pair, however often the seed runs.
 */
async function revokeEarlierKeys(base, token, siteId, ownerId, keep) {
  const { items } = await call(base, "GET", `/api/v1/sites/${siteId}/api-keys`, { token });
  const names = new Set(Object.values(DEMO_KEY_NAMES));
  const earlier = items.filter((k) => names.has(k.name) && k.created_by === ownerId && !keep.includes(k.id));
  for (const key of earlier) {
    try {
      await call(base, "DELETE", `/api/v1/sites/${siteId}/api-keys/${key.id}`, { token });
    } catch (err) {
      // Revoked meanwhile (another seed run): gone either way.
      if (!(err instanceof CallError) || err.status !== 404) throw err;
    }
  }
  return earlier.length;
}

/**
 * A session of its own for the developer (printed as ACCESS_TOKEN and REFRESH_TOKEN), apart from the
 * seed's stored one, so refreshing it never spends the token the next run signs in with: the phased
 * login with the password and a code e-mailed to the owner (read from the dev outbox), which spends no
 * TOTP step.
 */
async function developerSession(base, owner) {
  const opened = await call(base, "POST", "/api/v1/auth/login/start", {
    body: { email: owner.email, password: owner.password },
  });
  await call(base, "POST", "/api/v1/auth/login/mfa/send", {
    body: { challenge: opened.challenge, method: "email" },
  });
  // The code is mailed before the answer: the newest login code in the outbox is this one.
  const code = await latestCode(base, owner.email, "login_mfa");
  return call(base, "POST", "/api/v1/auth/login/mfa/verify", {
    body: { challenge: opened.challenge, method: "email", code },
  });
}

/**
 * A fresh owner and tenant every call (the bench wants tenants of their own on a throwaway store); also
 * returns the owner's session (not printed). The development seed is `seedDemo`.
 */
export async function createDemo(base) {
  const { owner, session, tag } = await signUpOwner(base);
  const tenant = await createTenant(base, session.access_token, tag);
  const { ids: _ids, ...keys } = await createKeys(base, session.access_token, tenant.site.id);
  return { demo: { user: owner, ...tenant, keys }, session };
}

function readState(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return {};
  }
}

function writeState(file, base, entry) {
  const all = readState(file);
  all[base] = entry;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * Signs in as the stored demo owner: its session first (one refresh, rotating the token), else password +
 * TOTP with the first step not spent yet (waiting for it, as a person waits for the next code). Null when
 * this platform does not know the owner (a new store): the caller signs up a new one.
 */
async function signIn(base, stored) {
  if (stored.refresh_token) {
    try {
      const session = await call(base, "POST", "/api/v1/auth/refresh", {
        body: { refresh_token: stored.refresh_token },
      });
      return { session, totpStep: stored.totp_step };
    } catch (err) {
      if (!(err instanceof CallError) || err.status !== 401) throw err;
    }
  }
  const step = Math.max(totpStep(Date.now()), (stored.totp_step ?? 0) + 1);
  const usableFrom = (step - 1) * TOTP_PERIOD_MS; // identity accepts the next step (drift window 1)
  if (Date.now() < usableFrom) await new Promise((r) => setTimeout(r, usableFrom - Date.now() + 50));
  try {
    const session = await call(base, "POST", "/api/v1/auth/login", {
      body: {
        email: stored.user.email,
        password: stored.user.password,
        totp_code: totpOf(stored.user.totp_secret).generate({ timestamp: step * TOTP_PERIOD_MS }),
      },
    });
    return { session, totpStep: step };
  } catch (err) {
    if (err instanceof CallError && err.status === 401 && err.code === "INVALID_CREDENTIALS") return null;
    throw err;
  }
}

/** The stored organization and site, when they still exist and the owner still reaches the site. */
async function storedTenant(base, token, stored) {
  if (!stored.site?.id || !stored.org?.id) return null;
  try {
    const site = await call(base, "GET", `/api/v1/sites/${stored.site.id}`, { token });
    return site.org_id === stored.org.id ? { org: stored.org, site: stored.site } : null;
  } catch (err) {
    if (err instanceof CallError && (err.status === 403 || err.status === 404)) return null;
    throw err;
  }
}

/**
 * The development seed: the demo owner (signed up on the first run against `base`, signed in on every
 * later one), its organization and site (created once, reused), and a fresh secret and public key per
 * run. `stateFile` keeps the owner's credentials, session and tenant per platform address; `fresh`
 * (an empty store, as `npm start` knows) skips signing in.
 */
export async function seedDemo(
  base,
  { stateFile = DEMO_STATE_FILE, fresh = false, rotateKeys = false } = {},
) {
  const stored = fresh ? undefined : readState(stateFile)[base];
  const signedIn = stored ? await signIn(base, stored) : null;
  let owner;
  let session;
  let totpStepSpent;
  let tenant = null;
  if (signedIn) {
    ({ session, totpStep: totpStepSpent } = signedIn);
    owner = stored.user;
    tenant = await storedTenant(base, session.access_token, stored);
  } else {
    ({ owner, session, totpStep: totpStepSpent } = await signUpOwner(base));
  }
  tenant ??= await createTenant(base, session.access_token, randomBytes(4).toString("hex"));
  const kept =
    rotateKeys || !signedIn ? null : await storedKeys(base, session.access_token, tenant.site.id, stored);
  const { ids, ...keys } = kept ?? (await createKeys(base, session.access_token, tenant.site.id));
  writeState(stateFile, base, {
    user: owner,
    ...tenant,
    keys: { ...keys, ids },
    refresh_token: session.refresh_token,
    totp_step: totpStepSpent,
  });
  if (!kept) await revokeEarlierKeys(base, session.access_token, tenant.site.id, owner.id, ids);
  const mine = await developerSession(base, owner);
  return {
    user: owner,
    ...tenant,
    keys,
    session: {
      access_token: mine.access_token,
      refresh_token: mine.refresh_token,
      expires_in: mine.expires_in,
    },
  };
}

/** A value as one POSIX shell word (single quotes; a quote inside closes, escapes and reopens). */
const shellWord = (value) => `'${String(value).replaceAll("'", `'\\''`)}'`;

/** `export` lines for `eval "$(npm run -s seed -- --env)"`: what the README's curls use. */
export function envLines(demo) {
  const vars = {
    SECRET_KEY: demo.keys.secret,
    PUBLIC_KEY: demo.keys.public,
    ACCESS_TOKEN: demo.session.access_token,
    REFRESH_TOKEN: demo.session.refresh_token,
    SITE_ID: demo.site.id,
    ORG_ID: demo.org.id,
  };
  return Object.entries(vars)
    .map(([name, value]) => `export ${name}=${shellWord(value)}`)
    .join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const base = process.env.PLATFORM_URL ?? "http://127.0.0.1:8787";
  const args = process.argv.slice(2);
  seedDemo(base, {
    ...(process.env.SEED_STATE_FILE ? { stateFile: process.env.SEED_STATE_FILE } : {}),
    rotateKeys: args.includes("--rotate-keys"),
  })
    .then((demo) => {
      // stdout holds only the answer (JSON or export lines); anything else goes to stderr.
      if (args.includes("--env")) console.log(envLines(demo));
      else console.log(args.includes("--json") ? JSON.stringify(demo) : JSON.stringify(demo, null, 2));
    })
    .catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
}
