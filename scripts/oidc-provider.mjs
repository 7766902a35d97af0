// A real OpenID provider (`oidc-provider`, certified) for local development and tests, never for
// production: `npm start` runs it on localhost with one demo user (scripts/start.mjs), and the test
// harness runs it behind the fake internet as `https://idp.test` (test/support/fakes/oidc.ts).
// Accounts sign in through a small form (e-mail and password), or at once when the authorization
// request's `login_hint` names a known account and `autoLogin` is on (tests).
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import Provider from "oidc-provider";

/** A fresh RS256 signing key (private JWK with kid), the provider's only key. */
export function providerSigningKey(kid = `idp-${randomUUID().slice(0, 8)}`) {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { ...privateKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" };
}

const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function loginForm(uid, error) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Local OpenID provider</title></head>
<body><main><h1>Local OpenID provider</h1><p>Development only: sign in as the demo user.</p>
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>E-mail <input name="email" type="email" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form></main></body></html>`;
}

async function readForm(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/**
 * Starts the provider. `accounts`: `{ email, password?, email_verified?, name?, sub?, amr? }`, more can be
 * added later with `addAccount`. `clients`: oidc-provider client metadata (client_id, client_secret,
 * redirect_uris). Returns the issuer, the listening URL, the signing key and a `close`.
 */
export async function startOidcProvider(options) {
  const { issuer, clients, host = "127.0.0.1", port = 0, autoLogin = false } = options;
  const signingKey = options.signingKey ?? providerSigningKey();
  const bySub = new Map();
  const byEmail = new Map();
  const addAccount = (input) => {
    const account = {
      sub: input.sub ?? randomUUID(),
      email: input.email.toLowerCase(),
      email_verified: input.email_verified ?? true,
      name: input.name ?? input.email.split("@")[0],
      password: input.password ?? null,
      amr: input.amr ?? ["pwd"],
      ...(input.acr ? { acr: input.acr } : {}),
    };
    bySub.set(account.sub, account);
    byEmail.set(account.email, account);
    return account;
  };
  for (const account of options.accounts ?? []) addAccount(account);

  const provider = new Provider(issuer, {
    clients,
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    findAccount: (_ctx, id) => {
      const account = bySub.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: account.email,
          email_verified: account.email_verified,
          name: account.name,
        }),
      };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    ttl: {
      AuthorizationCode: 60,
      IdToken: 300,
      AccessToken: 300,
      Interaction: 600,
      Session: 600,
      Grant: 600,
    },
  });
  provider.proxy = true;
  const handle = provider.callback();

  async function finish(req, res, account) {
    const details = await provider.interactionDetails(req, res);
    const grant = new provider.Grant({ accountId: account.sub, clientId: details.params.client_id });
    grant.addOIDCScope("openid email profile");
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      {
        login: { accountId: account.sub, amr: account.amr, ...(account.acr ? { acr: account.acr } : {}) },
        consent: { grantId },
      },
      { mergeWithLastSubmission: false },
    );
  }

  async function interaction(req, res, url) {
    const m = /^\/interaction\/([\w-]+)(\/login)?$/.exec(url.pathname);
    if (!m) return false;
    if (req.method === "POST" && m[2]) {
      const form = await readForm(req);
      const account = byEmail.get((form.get("email") ?? "").toLowerCase());
      if (!account?.password || account.password !== form.get("password")) {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(loginForm(m[1], "Unknown e-mail or wrong password."));
        return true;
      }
      await finish(req, res, account);
      return true;
    }
    const details = await provider.interactionDetails(req, res);
    const hinted = byEmail.get(String(details.params.login_hint ?? "").toLowerCase());
    if (autoLogin && hinted) {
      await finish(req, res, hinted);
      return true;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(loginForm(m[1]));
    return true;
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://local");
    // Test-only control routes of the harness (never given by `npm start`).
    const controlled = options.control ? options.control(req, res, url, { addAccount, readForm }) : false;
    Promise.resolve(controlled)
      .then((done) => (done ? true : interaction(req, res, url)))
      .then((done) => (done ? undefined : handle(req, res)))
      .catch((err) => {
        if (!res.headersSent) res.writeHead(400, { "content-type": "text/plain" });
        res.end(`interaction failed: ${err.message}`);
      });
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  // The test harness's provider must not keep the test runner's process alive.
  if (options.unref) server.unref();
  const address = server.address();
  return {
    issuer,
    url: `http://${host}:${address.port}`,
    port: address.port,
    signingKey,
    addAccount,
    accountBySub: (sub) => bySub.get(sub),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
