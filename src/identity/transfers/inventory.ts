/**
 * What accepting a pending `transfer` would end (issue 19), shown to both sides on the offer and in the
 * transfer lists, so nothing is a surprise: the site's members who are not members of the destination and
 * its pending site invitations (identity's own tables), and the site's live API keys and webhooks, which
 * content carries over (asked of content through sites' `siteIntegrations`, identity's only binding). A
 * share ends nothing (`will_end` null).
 */
import { rpc, type SiteIntegrations, type SitesRpc } from "../../lib/rpc";
import { nowIso } from "../core/crypto";
import type { Env } from "../core/worker-env";
import { countEndingGrants } from "./grants-store";
import type { TransferRow } from "./store";

export interface WillEnd {
  site_members: number;
  pending_invitations: number;
  /** Null when content could not be asked (the offer still answers; the counts are unknown, never zero). */
  api_keys: number | null;
  webhooks: number | null;
}

/** Sites per `siteIntegrations` call (its bound). */
const CHUNK = 100;

async function integrations(env: Env, siteIds: string[]): Promise<Map<string, SiteIntegrations>> {
  const found = new Map<string, SiteIntegrations>();
  for (let i = 0; i < siteIds.length; i += CHUNK) {
    const chunk = siteIds.slice(i, i + CHUNK);
    try {
      for (const r of await rpc<SitesRpc>(env.SITES).siteIntegrations(chunk)) found.set(r.site_id, r);
    } catch {
      // Unknown, shown as null: a failure is never reported as "nothing will stop working".
    }
  }
  return found;
}

/** `will_end` per pending transfer (mode `transfer`) of `rows`, by transfer id. */
export async function whatWillEnd(env: Env, rows: TransferRow[]): Promise<Map<string, WillEnd>> {
  const moves = rows.filter((r) => r.status === "pending" && r.mode === "transfer");
  const result = new Map<string, WillEnd>();
  if (moves.length === 0) return result;
  const now = nowIso();
  const [content, ...local] = await Promise.all([
    integrations(env, [...new Set(moves.map((r) => r.site_id))]),
    ...moves.map((r) => countEndingGrants(env.DB, r.site_id, r.to_org_id, now)),
  ]);
  moves.forEach((r, i) => {
    const site = (content as Map<string, SiteIntegrations>).get(r.site_id);
    result.set(r.id, { ...local[i]!, api_keys: site?.api_keys ?? null, webhooks: site?.webhooks ?? null });
  });
  return result;
}
