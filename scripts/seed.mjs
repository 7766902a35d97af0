// `npm run seed -- --json` (with `npm start` running): a fresh verified owner with a TOTP factor, an
// organization, a site, and a secret and a public API key, created through the gateway exactly as a
// user would (signup, the code from the dev outbox, TOTP enrolment, login, org, site, keys).
import { randomBytes } from "node:crypto";
import { TOTP } from "otpauth";

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
const PUBLIC_SCOPES = ["posts:read", "post_types:read", "sites:read"];
export const DEMO_ORIGINS = ["http://localhost:5173", "http://127.0.0.1:5173", "http://127.0.0.1:8787"];

async function call(base, method, path, { body, token, headers = {} } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${text}`);
  return json;
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

/** Creates the demo tenant; also returns the owner's session (not printed) for callers like the bench. */
export async function createDemo(base) {
  const tag = randomBytes(4).toString("hex");
  const email = `owner-${tag}@demo.example`;
  const password = `Demo-${randomBytes(12).toString("base64url")}`;

  await call(base, "POST", "/api/v1/auth/signup", { body: { email, password } });
  const code = await latestCode(base, email, "email_verify");
  const verified = await call(base, "POST", "/api/v1/auth/email/verify/confirm", { body: { email, code } });

  const enrol = await call(base, "POST", "/api/v1/auth/mfa/totp", { token: verified.access_token, body: {} });
  const totp = new TOTP({ secret: enrol.secret, digits: 6, period: 30, algorithm: "SHA1" });
  await call(base, "POST", "/api/v1/auth/mfa/totp/confirm", {
    token: verified.access_token,
    body: { code: totp.generate() },
  });

  // A fresh login with password and TOTP. The enrolment code's time step is spent (replay protection),
  // so the login uses the next step's code, which identity accepts within its drift window.
  const session = await call(base, "POST", "/api/v1/auth/login", {
    body: { email, password, totp_code: totp.generate({ timestamp: Date.now() + 30_000 }) },
  });
  const token = session.access_token;

  const org = await call(base, "POST", "/api/v1/auth/orgs", {
    token,
    body: { name: "Demo Org", slug: `demo-${tag}` },
  });
  const site = await call(base, "POST", "/api/v1/sites", {
    token,
    body: { org_id: org.id, name: "Demo Site", slug: `demo-${tag}`, default_language: "en" },
  });
  const secret = await call(base, "POST", `/api/v1/sites/${site.id}/api-keys`, {
    token,
    body: { name: "demo secret key", kind: "secret", scopes: DEMO_SECRET_SCOPES },
  });
  const publicKey = await call(base, "POST", `/api/v1/sites/${site.id}/api-keys`, {
    token,
    body: { name: "demo public key", kind: "public", scopes: PUBLIC_SCOPES, allowed_origins: DEMO_ORIGINS },
  });

  const demo = {
    user: { id: session.user.id, email, password, totp_secret: enrol.secret },
    org: { id: org.id, slug: org.slug },
    site: { id: site.id, slug: site.slug },
    keys: { secret: secret.key, public: publicKey.key },
  };
  return { demo, session };
}

export async function seedDemo(base) {
  return (await createDemo(base)).demo;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const base = process.env.PLATFORM_URL ?? "http://127.0.0.1:8787";
  seedDemo(base)
    .then((demo) =>
      console.log(process.argv.includes("--json") ? JSON.stringify(demo) : JSON.stringify(demo, null, 2)),
    )
    .catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
}
