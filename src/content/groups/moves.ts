/**
 * Content's RPC face of site moves (docs/decisions/site-groups.md "Moving a site"): the sites operator
 * console starts a move, reads its progress and each group's site count through these.
 */
import type { ContentGroupCount, SiteMoveProgress, SiteMoveRollback, SiteMoveStart } from "../../lib/rpc";
import type { WorkerEnv } from "../core/bindings";
import { groupSiteCountList } from "../core/groups";

/** The site's mover (one Durable Object per site). */
export function siteMover(env: WorkerEnv, siteId: string) {
  return env.SITE_MOVER.get(env.SITE_MOVER.idFromName(siteId));
}

export function startSiteMove(
  env: WorkerEnv,
  input: { site_id: string; to: string; requested_by: string | null },
): Promise<SiteMoveStart> {
  return siteMover(env, input.site_id).start({
    site_id: input.site_id,
    to: input.to,
    requested_by: input.requested_by,
  });
}

export function siteMoveProgress(env: WorkerEnv, siteId: string): Promise<SiteMoveProgress | null> {
  return siteMover(env, siteId).progress();
}

export function contentGroupCounts(env: WorkerEnv): Promise<ContentGroupCount[]> {
  return groupSiteCountList(env);
}

export async function rollBackSiteMove(env: WorkerEnv, siteId: string): Promise<SiteMoveRollback> {
  const answer = await siteMover(env, siteId).rollBack();
  return typeof answer === "string" ? { ok: false, reason: answer } : { ok: true, move: answer };
}
