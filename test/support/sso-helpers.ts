/**
 * Organization SSO in identity tests: an organization with a real OpenID provider (`https://idp.test`,
 * test/support/fakes/oidc.ts) configured and a vouched domain proved in the fake DNS, and the browser's
 * side of a sign-in (start, the provider's redirects with its cookies, the callback).
 */
import { proofValue } from "../../src/identity/sso/domain-proof";
import { call, freshIp, json, signupVerified, withStepUp } from "./identity-helpers";
import { cookieOf, dnsZone, followProvider, idpAccount, fragmentToken as tokenIn } from "./oidc-browser";
import { IDP_CLIENT, IDP_ISSUER } from "./oidc-constants";

export { cookieOf, dnsZone, idpAccount };

const PUBLIC_A = "93.184.216.34";

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

/**
 * The browser's way through: `GET /sso/start`, then the provider's redirects (its cookies kept) until
 * it sends the browser back to our callback. Returns the callback path and the browser cookie.
 */
export async function throughProvider(query: string, ip = freshIp()) {
  const start = await call("GET", `/api/v1/auth/sso/start?${query}`, { ip });
  if (start.status !== 303) throw new Error(`start ${start.status}: ${await start.text()}`);
  const browser = cookieOf(start, "svc_sso") ?? "";
  const authorize = start.headers.get("location") ?? "";
  return { path: await followProvider(authorize), browser, authorize, ip };
}

export function callback(path: string, browser: string, ip?: string) {
  return call("GET", path, { headers: { cookie: `svc_sso=${browser}` }, ...(ip ? { ip } : {}) });
}

/** `#register=<token>` / `#link=<token>` of the callback's redirect. */
export function fragmentToken(res: Response, kind: "register" | "link"): string {
  return tokenIn(res.headers.get("location") ?? "", kind);
}
