/**
 * An organization's SSO configuration (issue 24 §1), owners only: read, set (step-up), remove
 * (step-up), and the DNS proof of its vouched domains. Every check that can refuse runs before the
 * step-up (the issuer is discovered through the SSRF guard first); every owner is told of a change.
 */
import { newId } from "../../lib/ids";
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { requireStepUp } from "../factors/step-up";
import { requireOrgMember } from "../members/members";
import { grantEndStatements } from "../oauth/endings";
import { domainProved, normalizeDomain, proofName, proofValue } from "./domain-proof";
import { tellOwners } from "./notices";
import { discover } from "./oidc";
import { checkProviderUrl, ProviderUrlRefused } from "./outbound";
import { sealClientSecret } from "./secret-box";
import { SSO_MAX_DOMAINS } from "./settings";
import {
  domainHeldElsewhere,
  findConfig,
  listDomains,
  markDomainProved,
  removeConfig,
  saveConfig,
} from "./store";
import { newUndo, snapshot, undoLink } from "./undo";

export interface SsoSettingsInput {
  issuer: string;
  client_id: string;
  client_secret: string;
  domains: string[];
  enforced: boolean;
  allow_passwords: boolean;
}

export function callbackUrl(env: Env): string {
  return `${env.ISSUER.replace(/\/$/, "")}/api/v1/auth/sso/callback`;
}

/** Owners only: a non-member gets the opaque 404, a member who is not an owner 403. */
export async function requireOwner(env: Env, userId: string, orgId: string) {
  const me = await requireOrgMember(env.DB, orgId, userId, {
    notFoundDetail: "Organization not found.",
  });
  if (!me.isOwner) fail("FORBIDDEN", "Only an owner configures single sign-on.");
}

/** The configuration as owners read it: never the secret; each domain with the TXT record that proves it. */
export async function ssoView(env: Env, orgId: string) {
  const config = await findConfig(env.DB, orgId);
  const domains = await listDomains(env.DB, orgId);
  return {
    configured: config !== null,
    issuer: config?.issuer ?? null,
    client_id: config?.client_id ?? null,
    enforced: config?.enforced === 1,
    allow_passwords: config ? config.allow_passwords === 1 : true,
    redirect_uri: callbackUrl(env),
    domains: await Promise.all(
      domains.map(async (d) => ({
        domain: d.domain,
        verified: d.verified_at !== null,
        txt_name: proofName(d.domain),
        txt_value: await proofValue(orgId, d.domain),
      })),
    ),
  };
}

function parseDomains(raw: string[]): string[] {
  const out = new Set<string>();
  for (const item of raw) {
    const domain = normalizeDomain(item);
    if (!domain) fail("BAD_REQUEST", `Not an e-mail domain: ${item.slice(0, 64)}`);
    out.add(domain);
  }
  if (out.size > SSO_MAX_DOMAINS) fail("BAD_REQUEST", `At most ${SSO_MAX_DOMAINS} domains.`);
  return [...out];
}

async function discoverIssuer(env: Env, issuer: string): Promise<string> {
  try {
    const { url } = checkProviderUrl(env, issuer);
    const as = await discover(env, url.toString().replace(/\/$/, ""));
    return as.issuer;
  } catch (err) {
    if (err instanceof ProviderUrlRefused)
      fail("SSO_ISSUER_INVALID", `The issuer URL is refused (${err.reason}).`);
    if ((err as Error).name === "OperationProcessingError") {
      fail("SSO_ISSUER_INVALID", "The issuer's discovery document does not describe it.");
    }
    fail("SSO_PROVIDER_UNAVAILABLE", {
      detail: "The issuer could not be reached.",
      reason: (err as Error).message,
    });
  }
}

/** Sets the configuration: the issuer is discovered before the step-up, written after it. */
export async function setSso(
  env: Env,
  services: Services,
  userId: string,
  orgId: string,
  input: SsoSettingsInput,
  code: string | undefined,
) {
  await requireOwner(env, userId, orgId);
  const domains = parseDomains(input.domains);
  const issuer = await discoverIssuer(env, input.issuer.trim());
  await requireStepUp(env, services, userId, "org.sso.set", code);
  const before = await findConfig(env.DB, orgId);
  const same = before && before.issuer === issuer && before.client_id === input.client_id;
  const configId = same ? before.config_id : newId();
  const sealed = await sealClientSecret(env.SSO_SECRET_KEY, { orgId, configId }, input.client_secret);
  const undo = await newUndo(env.DB, orgId, configId, await snapshot(env.DB, before));
  // Turning enforcement on ends every MCP agent's grant on the organization's sites in the same batch: an
  // agent holds no SSO session, and enforcement admits only the provider's (oauth/endings.ts).
  const agents =
    input.enforced && before?.enforced !== 1
      ? await grantEndStatements(env.DB, { orgId }, { reason: "sso_enforced", by: userId })
      : [];
  await saveConfig(
    env.DB,
    {
      org_id: orgId,
      config_id: configId,
      issuer,
      client_id: input.client_id,
      client_secret_sealed: sealed,
      enforced: input.enforced ? 1 : 0,
      allow_passwords: input.allow_passwords ? 1 : 0,
    },
    domains,
    before !== null && before.issuer !== issuer,
    (updatedAt) => [...undo.insert(updatedAt), ...agents],
  );
  await proveDomains(env, orgId);
  await tellOwners(env, services, orgId, before ? "changed" : "set", undoLink(env, orgId, undo.token));
}

/** Reads the proof of every unproved domain now; a domain another organization holds stays unproved. */
export async function proveDomains(env: Env, orgId: string) {
  for (const d of await listDomains(env.DB, orgId)) {
    if (d.verified_at !== null) continue;
    if (await domainHeldElsewhere(env.DB, orgId, d.domain)) continue;
    if (await domainProved(env, orgId, d.domain)) await markDomainProved(env.DB, orgId, d.domain);
  }
}

export async function removeSso(
  env: Env,
  services: Services,
  userId: string,
  orgId: string,
  code: string | undefined,
) {
  await requireOwner(env, userId, orgId);
  await requireStepUp(env, services, userId, "org.sso.remove", code);
  const had = await findConfig(env.DB, orgId);
  await removeConfig(env.DB, orgId);
  if (had) await tellOwners(env, services, orgId, "removed");
}
