/**
 * Content's write path into a site's settings document (RPC `mergeSiteSettings`, behind content's
 * `PATCH /v1/site/settings` and `PATCH /v1/site/seo`). Sites owns the document: the merge is applied
 * here onto the freshly read stored document, then the PATCH's own settings step runs (readable
 * document, validator, image rehosting of the images the merge brings: the same codes), and the
 * result is stored with a
 * compare-and-swap on the whole document, so a concurrent write is never overwritten (the merge is
 * re-applied onto the newer document instead). After storing, the PATCH's after-write path runs: host
 * cache invalidation, the push of the projection to content, queued image swaps.
 */
import { parseId } from "../../lib/ids";
import type { ImageIngestResult, SiteSettingsMerge } from "../../lib/rpc";
import type { Services } from "../core/app-env";
import { LOST, untilSwapped } from "../core/compare-and-swap";
import { fail } from "../errors";
import type { SettingsDocument } from "./record";
import { afterWrite, settingsToStore } from "./service";
import { getVisibleSite, swapSettings } from "./store";

/** Attempts of the compare-and-swap before EDIT_CONFLICT (each re-reads and re-merges), as post edits. */
export const MAX_MERGE_ATTEMPTS = 16;

/** A merged document may not outgrow what the PATCH accepts as a whole body (a D1 row holds 2 MB). */
export const MAX_MERGED_SETTINGS_BYTES = 1024 * 1024;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `base` with `patch` applied key by key: a present key replaces the stored value whole, `null` removes
 * it. Built with `Object.fromEntries` so that every key, `__proto__` included, is an own data property
 * (the validator then refuses that key as the PATCH does); neither input is mutated.
 */
function mergeKeys(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const kept = Object.entries(base).filter(([k]) => !Object.hasOwn(patch, k));
  const set = Object.entries(patch).filter(([, v]) => v !== null && v !== undefined);
  return Object.fromEntries([...kept, ...set]);
}

/**
 * The document after the merge: top-level keys of `settings`, then keys of `seo` into `settings.seo`
 * (a stored `seo` that is not an object counts as empty: the merged keys replace it).
 */
export function mergeSettingsDocument(
  stored: SettingsDocument,
  merge: Pick<SiteSettingsMerge, "settings" | "seo">,
): SettingsDocument {
  let next = merge.settings ? mergeKeys(stored, merge.settings) : { ...stored };
  if (merge.seo) {
    const seo = mergeKeys(isObject(next.seo) ? next.seo : {}, merge.seo);
    next = mergeKeys(next, { seo });
  }
  return next;
}

function now() {
  return new Date().toISOString();
}

/** Merges, validates, rehosts and stores; returns the stored document. Throws the PATCH's ApiErrors. */
export async function mergeSiteSettings(
  env: SitesEnv,
  services: Services,
  input: SiteSettingsMerge,
): Promise<SettingsDocument> {
  const id = parseId(input.site_id);
  if (!id) fail("NOT_FOUND", "Site not found.");
  // Each new image is ingested once, whatever the number of attempts (an ingest makes a media asset).
  const rehost = { onlyNew: true, memo: new Map<string, ImageIngestResult>() };
  const conflict = "The site's settings kept changing during this update; retry.";
  return untilSwapped(MAX_MERGE_ATTEMPTS, conflict, async () => {
    const site = await getVisibleSite(env.DB, id);
    if (!site) fail("NOT_FOUND", "Site not found.");
    const { settings, pending } = await settingsToStore(
      env,
      services,
      site,
      (stored) => mergeSettingsDocument(stored, input),
      [],
      // Content's key holds `site:code` (the key scope of the `code` permission) or may not change markup.
      input.may_edit_markup === true,
      rehost,
    );
    if (new TextEncoder().encode(settings).byteLength > MAX_MERGED_SETTINGS_BYTES) {
      fail(
        "PAYLOAD_TOO_LARGE",
        `The merged settings would be larger than ${MAX_MERGED_SETTINGS_BYTES} bytes.`,
      );
    }
    const at = now();
    // Written meanwhile (or deleted: the next read says so): merge again onto the newer document.
    if (!(await swapSettings(env.DB, id, site.settings, settings, at))) return LOST;
    await afterWrite(env, services, site, { ...site, settings, updated_at: at }, pending);
    return JSON.parse(settings) as SettingsDocument;
  });
}
