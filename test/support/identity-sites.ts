/**
 * A real site in the sites service for identity's tests, created as the gateway would create it: a POST with
 * the signed edge headers of the organization's owner (identity's tests reach sites through the auxiliary
 * worker's binding).
 */
import { env } from "cloudflare:workers";
import { fetchSigned } from "./edge-signing";

/** Creates a site of `orgId` as its owner `userId`; its id. */
export async function createSiteAsOwner(userId: string, orgId: string): Promise<string> {
  const sites = (env as unknown as IdentityEnv).SITES;
  const res = await fetchSigned(sites, "http://sites/api/v1/sites", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-user-id": userId,
      "x-session-kind": "staff",
      "x-org-memberships": JSON.stringify([
        { org_id: orgId, role: "org_owner", permissions: ["members:manage"], owner: true },
      ]),
      "x-site-memberships": "[]",
    },
    body: JSON.stringify({
      org_id: orgId,
      name: "Site",
      slug: `s-${crypto.randomUUID().slice(0, 8)}`,
      default_language: "en",
    }),
  });
  if (res.status !== 201) throw new Error(`site ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}
