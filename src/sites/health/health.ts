/**
 * Site health: the hourly sweep (`0 * * * *`) that computes each visible site's pending issues into the
 * health cache, and the read of that cache (`GET /v1/sites/{id}/health` reads nothing else). The issue
 * codes are stable; docs/decisions/sites.md ("Site health") lists them with their rules.
 */

import { pool } from "../../lib/pool";
import type { SiteHealthFacts, StalledConvergence } from "../../lib/rpc";
import type { Services } from "../core/app-env";
import { fail } from "../errors";
import { ownOrigins } from "../site/image-rehost";
import { hostsOf, readSettings, type SettingsDocument } from "../site/record";
import { collectExternalImageUrls } from "../site/settings/validate-settings";
import type { SiteRow } from "../site/store";
import type { HealthEntry, HealthIssue } from "./cache";
import { checkHostDns, type Fleet, type HostDnsCheck, platformFleet } from "./dns-check";
import { type DomainLoss, type HostHolding, holdingsOf, lossesOf, pruneLosses } from "./domains-store";
import { sweepProof } from "./host-proof";
import { visibleSitesPage } from "./store";

export const HEALTH_CRON = "0 * * * *";
/** Sites per chunk: one page read, one content call, bounded DNS work held in memory at a time. */
export const SWEEP_CHUNK = 25;
/** DNS checks in flight at once (each is four DoH queries). */
const DNS_CONCURRENCY = 8;
/** How long a lost host stays among the loser's issues. */
export const DOMAIN_LOSS_DAYS = 30;
const MAX_LISTED_PATHS = 20;

const issue = (
  code: string,
  detail: string,
  extra: Omit<HealthIssue, "code" | "detail"> = {},
): HealthIssue => ({
  code,
  detail,
  ...extra,
});

const present = (v: unknown) =>
  (typeof v === "string" && v.trim() !== "") ||
  (typeof v === "object" && v !== null && Object.keys(v).length > 0);

/** `no_logo`, `no_favicon`, `external_images_pending` (and `settings_unreadable`) from the settings. */
export function settingsIssues(row: SiteRow, env: Pick<SitesEnv, "PLATFORM_DOMAIN" | "MEDIA_PUBLIC_BASE">) {
  const { settings, unreadable } = readSettings(row.settings);
  if (unreadable) {
    return [
      issue("settings_unreadable", "The stored settings are not a JSON object; save the settings again."),
    ];
  }
  const out: HealthIssue[] = [];
  const s: SettingsDocument = settings;
  if (!["logo", "logo_svg", "logo_url", "logo_media_id"].some((k) => present(s[k]))) {
    out.push(issue("no_logo", "The site has no logo (settings.logo, logo_svg or logo_url)."));
  }
  const favicon = Object.keys(s).filter((k) => k.startsWith("favicon_"));
  if (!favicon.some((k) => present(s[k]))) {
    out.push(
      issue(
        "no_favicon",
        "The site has no favicon (favicon_png_url, favicon_ico_url, favicon_svg or favicon_kit).",
      ),
    );
  }
  const external = collectExternalImageUrls(
    s,
    ownOrigins(hostsOf(row, env.PLATFORM_DOMAIN), env.MEDIA_PUBLIC_BASE),
  );
  if (external.length > 0) {
    out.push(
      issue(
        "external_images_pending",
        `${external.length} image(s) of the settings are still hosted elsewhere.`,
        {
          data: { count: external.length, paths: external.slice(0, MAX_LISTED_PATHS).map((r) => r.path) },
        },
      ),
    );
  }
  return out;
}

function contentIssues(facts: SiteHealthFacts | undefined): HealthIssue[] {
  const out: HealthIssue[] = [];
  if (!facts?.has_legal_pages) {
    out.push(
      issue("no_legal_pages", "The site has no legal pages (generate them with the legal pages app)."),
    );
  }
  if (!facts?.has_published) out.push(issue("nothing_published", "Nothing is published on the site yet."));
  return out;
}

function convergenceIssue(stalled: StalledConvergence): HealthIssue {
  const { site_id: _s, ...data } = stalled;
  return issue(
    "convergence_stalled",
    "Content has not caught up with the site's new owner since its transfer.",
    {
      data,
    },
  );
}

/**
 * DNS and ownership issues of one held custom host, from the one verdict function the route uses too; the
 * proof is re-checked, and a lost proof ends serving after its grace period (host-proof.ts).
 */
export async function hostIssues(
  ctx: Pick<SweepContext, "env" | "services" | "now">,
  site: SiteRow,
  holding: HostHolding,
  check: HostDnsCheck,
): Promise<HealthIssue[]> {
  const out: HealthIssue[] = [];
  const { host } = holding;
  if (check.reason === "lookup_failed") {
    out.push(issue("dns_lookup_failed", `The DNS of ${host} could not be read this time.`, { host }));
  } else if (!check.points_to_platform) {
    out.push(
      issue("dns_not_pointing", `${host} does not point at the platform.`, {
        host,
        data: { reason: check.reason, records: check.records, expected: check.expected },
      }),
    );
  }
  const evidence = { txt: check.proof_txt, dns: check.dns_proof };
  out.push(...(await sweepProof(ctx.env, ctx.services, site, holding, evidence, ctx.now)));
  return out;
}

function lossIssue(loss: DomainLoss): HealthIssue {
  return issue("domain_lost", `${loss.host} was taken by a site that proved owning it.`, {
    host: loss.host,
    data: { lost_at: loss.lost_at },
  });
}

interface SweepContext {
  env: SitesEnv;
  services: Services;
  fleet: Fleet | null;
  stalled: Map<string, StalledConvergence> | null;
  now: Date;
}

/** One chunk of sites: their facts in bulk, DNS checks in a bounded pool, one cache entry per site. */
async function sweepChunk(ctx: SweepContext, rows: SiteRow[]): Promise<number> {
  const { env, services, fleet, stalled, now } = ctx;
  const at = now.toISOString();
  const ids = rows.map((r) => r.id);
  const since = new Date(now.getTime() - DOMAIN_LOSS_DAYS * 86_400_000).toISOString();
  const [holdings, losses, facts] = await Promise.all([
    holdingsOf(env.DB, ids),
    lossesOf(env.DB, ids, since),
    services.content.healthFacts(ids).catch((err: unknown) => {
      services.log.warn("health_content_facts_failed", { error: String(err) });
      return null;
    }),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const dns = fleet
    ? await pool(holdings, DNS_CONCURRENCY, async (h) =>
        hostIssues(
          ctx,
          byId.get(h.site_id)!,
          h,
          await checkHostDns(services.dns, fleet, byId.get(h.site_id)!, h.host, env.PLATFORM_DOMAIN),
        ),
      )
    : [];
  let written = 0;
  for (const row of rows) {
    const unchecked = [
      ...(fleet ? [] : ["dns"]),
      ...(facts ? [] : ["content"]),
      ...(stalled ? [] : ["convergence"]),
    ];
    const held = holdings.filter((h) => h.site_id === row.id);
    const issues = [
      ...settingsIssues(row, env),
      ...(facts ? contentIssues(facts.find((f) => f.site_id === row.id)) : []),
      ...(stalled?.has(row.id) ? [convergenceIssue(stalled.get(row.id)!)] : []),
      ...holdings.flatMap((h, i) => (h.site_id === row.id ? (dns[i] ?? []) : [])),
      ...losses.filter((l) => l.site_id === row.id && !held.some((h) => h.host === l.host)).map(lossIssue),
    ];
    const entry: HealthEntry = { checked_at: at, issues, ...(unchecked.length ? { unchecked } : {}) };
    await services.health!.write(row.id, entry);
    written++;
  }
  return written;
}

/**
 * The hourly sweep: every visible site, in id order, `SWEEP_CHUNK` at a time. Content's stalled
 * convergence is asked ONCE per sweep; its published/legal facts once per chunk. Without a fleet
 * configuration the DNS checks are skipped (logged as an error, `unchecked: ["dns"]`), never reported
 * as "not pointing" for every host.
 */
export async function sweepHealth(env: SitesEnv, services: Services, now = new Date()): Promise<number> {
  if (!services.health) {
    services.log.error("health_cache_not_wired");
    return 0;
  }
  const fleet = platformFleet(env);
  if (!fleet) services.log.error("dns_fleet_not_configured", { vars: ["PLATFORM_IPV4", "PLATFORM_IPV6"] });
  const stalled = await services.content
    .stalledConvergence()
    .then((list) => new Map(list.map((s) => [s.site_id, s])))
    .catch((err: unknown) => {
      services.log.warn("health_convergence_failed", { error: String(err) });
      return null;
    });
  const ctx: SweepContext = { env, services, fleet, stalled, now };
  let cursor = "";
  let sites = 0;
  for (;;) {
    const rows = await visibleSitesPage(env.DB, cursor, SWEEP_CHUNK);
    if (rows.length === 0) break;
    sites += await sweepChunk(ctx, rows);
    cursor = rows[rows.length - 1]!.id;
  }
  await pruneLosses(env.DB, new Date(now.getTime() - DOMAIN_LOSS_DAYS * 86_400_000).toISOString());
  return sites;
}

export type HealthView = { cached: false; issues: [] } | ({ cached: true } & HealthEntry);

/** `GET /v1/sites/{id}/health`: the cache only; 503 HEALTH_UNAVAILABLE when it is not wired. */
export async function readHealth(services: Services, siteId: string): Promise<HealthView> {
  if (!services.health) {
    services.log.error("health_cache_not_wired");
    fail("HEALTH_UNAVAILABLE", "The health cache is not available.");
  }
  const entry = await services.health.read(siteId);
  return entry ? { cached: true, ...entry } : { cached: false, issues: [] };
}
