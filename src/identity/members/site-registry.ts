/** The sites service as identity's source of truth for which organization owns a site. */
import { rpc, type SitesRpc } from "../../lib/rpc";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";

/**
 * The site's owning organization, null for an unknown site. Fails closed: when the registry does not
 * answer the request is refused (500 LOOKUP_FAILED), never authorized on a guess.
 */
export async function siteOrg(env: Env, siteId: string): Promise<{ org_id: string; status: string } | null> {
  try {
    return await rpc<SitesRpc>(env.SITES).siteOrg(siteId);
  } catch (err) {
    fail("LOOKUP_FAILED", {
      detail: "The site registry is unavailable.",
      reason: (err as Error).message,
    });
  }
}
