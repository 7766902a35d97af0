/**
 * Proof that an organization controls an e-mail domain its provider vouches for: the DNS TXT scheme
 * sites derives for custom hosts (src/sites/health/domain-proof.ts): the record `_platform-verify.<domain>`
 * carries `platform-verify=<32 hex>` of SHA-256 over the organization id and the domain (a value of its
 * own, so a site's host proof never proves a domain for SSO, nor the reverse). Read through
 * DNS-over-HTTPS (src/lib/doh.ts). A domain is proved for one organization at a time: a proved holder
 * is never displaced (the unique index of migration 0007).
 */
import { DOH_TYPES, dnsName, dohQuery, RCODE_NOERROR } from "../../lib/doh";
import type { Env } from "../core/worker-env";
import { DOMAIN_PROOF_LABEL } from "./settings";

const TOKEN_PREFIX = "platform-verify=";
const DOMAIN_RE = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export function normalizeDomain(raw: string): string | null {
  const domain = dnsName(raw);
  return DOMAIN_RE.test(domain) ? domain : null;
}

export function proofName(domain: string): string {
  return `${DOMAIN_PROOF_LABEL}.${domain}`;
}

export async function proofValue(orgId: string, domain: string): Promise<string> {
  const bytes = new TextEncoder().encode(`platform-sso-domain-proof:v1\n${orgId}\n${domain}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `${TOKEN_PREFIX}${[...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** TXT data as DoH JSON carries it: quoted character-strings, concatenated. */
function txtValue(data: string): string {
  const parts = [...data.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, "$1"));
  return parts.length > 0 ? parts.join("") : data;
}

/** Whether the TXT record carries this organization's value; false also when DNS cannot say. */
export async function domainProved(env: Env, orgId: string, domain: string): Promise<boolean> {
  const name = proofName(domain);
  try {
    const answer = await dohQuery(env.DOH_URL, name, "TXT", undefined, AbortSignal.timeout(3000));
    if (answer.status !== RCODE_NOERROR) return false;
    const wanted = await proofValue(orgId, domain);
    return answer.records.some(
      (r) => r.type === DOH_TYPES.TXT && r.name === name && txtValue(r.data) === wanted,
    );
  } catch {
    return false;
  }
}
