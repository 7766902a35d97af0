/**
 * A browser's side of an OpenID sign-in with the test provider (https://idp.test): cookies read from
 * answers, and the provider's redirects followed (its cookies kept) until it sends the browser back to
 * our callback. Plain `fetch`: usable from any workerd project (identity, e2e).
 */
import { IDP_ISSUER, TEST_CALLBACK } from "./oidc-constants";

export function cookieOf(res: Response, name: string): string | null {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const [k, ...v] = (pair ?? "").split("=");
    if (k?.trim() === name) return v.join("=");
  }
  return null;
}

/** From the provider's authorization URL to our callback: the callback's path and query. */
export async function followProvider(authorizationUrl: string): Promise<string> {
  let url = authorizationUrl;
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
  return `${callback.pathname}${callback.search}`;
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

export async function dnsZone(name: string, zone: Record<string, unknown>) {
  const res = await fetch(`https://dns.test/__zone/${name}`, { method: "PUT", body: JSON.stringify(zone) });
  if (res.status !== 204) throw new Error(`zone ${name}: ${res.status}`);
}

/** `#register=<token>` / `#link=<token>` of the callback's redirect. */
export function fragmentToken(location: string, kind: "register" | "link"): string {
  const m = new RegExp(`#${kind}=([A-Za-z0-9_-]+)`).exec(location);
  if (!m) throw new Error(`no ${kind} token in ${location}`);
  return m[1]!;
}
