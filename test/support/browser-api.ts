/**
 * The platform's API from Node in the browser tests, as a client calls it through the gateway (each call
 * from a client address of its own: per-IP quotas), and a page of a customer's site on a localhost port.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { freshClientIp, outboxMessage, platform } from "./browser";

/** One JSON call to the gateway; a status other than 2xx throws. The answer's JSON (null when empty). */
export async function gatewayCall<T>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<T> {
  const res = await fetch(`${platform().urls.gateway}${path}`, {
    method,
    headers: {
      "cf-connecting-ip": freshClientIp(),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/**
 * A POST to identity's API (`/api/v1/auth` + `path`) through the gateway, any status answered: its status
 * and JSON body (null when empty). `ip` is the client address (a fresh one by default).
 */
export async function authPost<T = Record<string, unknown>>(
  path: string,
  body: unknown,
  options: { token?: string; ip?: string } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "cf-connecting-ip": options.ip ?? freshClientIp(),
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(`${platform().urls.gateway}/api/v1/auth${path}`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/**
 * A verified person made the way a client makes one: signup and the e-mailed code. `slug` is
 * `${prefix}-<unique tag>` (their organization's and site's slug where they make one); the password is
 * strong and unique. Their address, password and access token.
 */
export async function verifiedPerson(
  prefix: string,
  label: string,
): Promise<{ email: string; password: string; token: string; slug: string }> {
  const slug = `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const email = `${slug}@browser.example`;
  const password = `${label}-browser-${slug}-passphrase`;
  await gatewayCall("POST", "/api/v1/auth/signup", { body: { email, password } });
  const { code } = await outboxMessage(email, "email_verify");
  const { access_token: token } = await gatewayCall<{ access_token: string }>(
    "POST",
    "/api/v1/auth/email/verify/confirm",
    { body: { email, code } },
  );
  return { email, password, token, slug };
}

/** An organization of the person and a site of it, both with `slug`: the site's id. */
export async function orgWithSite(
  token: string,
  slug: string,
  names: { org: string; site: string },
): Promise<{ siteId: string }> {
  const org = await gatewayCall<{ id: string }>("POST", "/api/v1/auth/orgs", {
    token,
    body: { name: names.org, slug },
  });
  const site = await gatewayCall<{ id: string }>("POST", "/api/v1/sites", {
    token,
    body: { org_id: org.id, name: names.site, slug, default_language: "en" },
  });
  return { siteId: site.id };
}

/**
 * A new owner made the way a client makes one: a verified person, an organization and a site
 * (`${prefix}-<tag>` their slug, `${label} Org` and `${label} Site` their names). The owner's access token
 * and the site's id.
 */
export async function siteOwner(prefix: string, label: string): Promise<{ token: string; siteId: string }> {
  const { token, slug } = await verifiedPerson(prefix, label);
  const { siteId } = await orgWithSite(token, slug, { org: `${label} Org`, site: `${label} Site` });
  return { token, siteId };
}

/**
 * Two keys of the owner's site: a secret key (`ck_`, named writer) and a public key (`pk_`, named pages)
 * that reads from `allowedOrigin`, each with its scopes.
 */
export async function siteKeys(
  owner: { token: string; siteId: string },
  scopes: { secret: string[]; public: string[] },
  allowedOrigin: string,
): Promise<{ secret: string; publicKey: string }> {
  const keys = `/api/v1/sites/${owner.siteId}/api-keys`;
  const secret = await gatewayCall<{ key: string }>("POST", keys, {
    token: owner.token,
    body: { name: "writer", kind: "secret", scopes: scopes.secret },
  });
  const publicKey = await gatewayCall<{ key: string }>("POST", keys, {
    token: owner.token,
    body: { name: "pages", kind: "public", scopes: scopes.public, allowed_origins: [allowedOrigin] },
  });
  return { secret: secret.key, publicKey: publicKey.key };
}

/** A page of a customer's site: `html` served on its own localhost port (its own origin). */
export async function serveHtml(html: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}
