/**
 * Organization SSO in identity tests: an organization with a real OpenID provider (`https://idp.test`,
 * test/support/fakes/oidc.ts) configured and a vouched domain proved in the fake DNS, and the browser's
 * side of a sign-in (start, the provider's redirects with its cookies, the callback).
 */
import { proofValue } from "../../src/identity/sso/domain-proof";
import { call, freshIp, json, signupVerified, withStepUp } from "./identity-helpers";
import { IDP_CLIENT, IDP_ISSUER, TEST_CALLBACK } from "./oidc-constants";

const PUBLIC_A = "93.184.216.34";

export async function dnsZone(name: string, zone: Record<string, unknown>) {
  const res = await fetch(`https://dns.test/__zone/${name}`, { method: "PUT", body: JSON.stringify(zone) });
  if (res.status !== 204) throw new Error(`zone ${name}: ${res.status}`);
}

export function freshDomain(tag = "acme"): string {
  return `${tag}-${crypto.randomUUID().slice(0, 8)}.test`;
}

export async function proveDomain(orgId: string, domain: string) {
  await dnsZone(`_platform-verify.${domain}`, { TXT: [await proofValue(orgId, domain)] });
}

export interface SsoOrg {
  orgId: string;
  slug: string;
  domain: string;
  owner: Awaited<ReturnType<typeof signupVerified>>;
}

export function ssoSettings(domain: string, extra: Record<string, unknown> = {}) {
  return {
    issuer: IDP_ISSUER,
    ...IDP_CLIENT,
    domains: [domain],
    enforced: false,
    allow_passwords: true,
    ...extra,
  };
}

/** An organization whose owner configured SSO with `idp.test` and proved one domain. */
export async function ssoOrg(
  extra: Record<string, unknown> = {},
  existingOwner?: SsoOrg["owner"],
): Promise<SsoOrg> {
  await dnsZone("idp.test", { A: [PUBLIC_A] });
  const owner = existingOwner ?? (await signupVerified());
  const slug = `sso-${crypto.randomUUID().slice(0, 8)}`;
  const created = await call("POST", "/api/v1/auth/orgs", {
    token: owner.session.access_token,
    body: { name: "SSO Org", slug },
  });
  if (created.status !== 201) throw new Error(`org ${created.status}`);
  const orgId = (await json<{ id: string }>(created)).id;
  const domain = freshDomain();
  await proveDomain(orgId, domain);
  const set = await withStepUp(owner.email, "PUT", `/api/v1/auth/orgs/${orgId}/sso`, {
    token: owner.session.access_token,
    body: ssoSettings(domain, extra),
  });
  if (set.status !== 200) throw new Error(`sso set ${set.status}: ${await set.text()}`);
  return { orgId, slug, domain, owner };
}

/** Registers an account at the provider (claims and, for refusal tests, how its ID token is spoiled). */
export async function idpAccount(input: {
  email: string;
  email_verified?: boolean;
  name?: string;
  amr?: string[];
  tamper?: "nonce" | "aud" | "expired" | "iss" | "none" | "foreign";
}): Promise<string> {
  const res = await fetch(`${IDP_ISSUER}/__accounts`, { method: "POST", body: JSON.stringify(input) });
  return ((await res.json()) as { sub: string }).sub;
}

function cookieOf(res: Response, name: string): string | null {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const [k, ...v] = (pair ?? "").split("=");
    if (k?.trim() === name) return v.join("=");
  }
  return null;
}

/**
 * The browser's way through: `GET /sso/start`, then the provider's redirects (its cookies kept) until
 * it sends the browser back to our callback. Returns the callback path and the browser cookie.
 */
export async function throughProvider(query: string, ip = freshIp()) {
  const start = await call("GET", `/api/v1/auth/sso/start?${query}`, { ip });
  if (start.status !== 303) throw new Error(`start ${start.status}: ${await start.text()}`);
  const browser = cookieOf(start, "svc_sso");
  let url = start.headers.get("location") ?? "";
  const jar = new Map<string, string>();
  for (let hop = 0; hop < 8 && !url.startsWith(TEST_CALLBACK); hop++) {
    const res = await fetch(url, {
      redirect: "manual",
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [k, ...v] = (pair ?? "").split("=");
      if (k) jar.set(k.trim(), v.join("="));
    }
    const next = res.headers.get("location");
    if (!next) throw new Error(`provider answered ${res.status}: ${await res.text()}`);
    url = new URL(next, url).toString();
  }
  if (!url.startsWith(TEST_CALLBACK)) throw new Error(`never came back: ${url}`);
  const callback = new URL(url);
  return {
    path: `${callback.pathname}${callback.search}`,
    browser: browser ?? "",
    authorize: start.headers.get("location") ?? "",
    ip,
  };
}

export function callback(path: string, browser: string, ip?: string) {
  return call("GET", path, { headers: { cookie: `svc_sso=${browser}` }, ...(ip ? { ip } : {}) });
}

/** `#register=<token>` / `#link=<token>` of the callback's redirect. */
export function fragmentToken(res: Response, kind: "register" | "link"): string {
  const location = res.headers.get("location") ?? "";
  const m = new RegExp(`#${kind}=([A-Za-z0-9_-]+)`).exec(location);
  if (!m) throw new Error(`no ${kind} token in ${location}`);
  return m[1]!;
}

export { cookieOf };
