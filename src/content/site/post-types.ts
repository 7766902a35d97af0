/**
 * A site's post type catalogue (RPC, for the sites service: applets define their types on install and
 * remove them on uninstall). A site starts with the built-in `post` and `page` (created once, with the
 * site's first push); `definePostType` creates or updates a type; `removePostType` disables it: it is
 * no longer listed nor accepted for new posts, and its posts leave public view but are kept, never
 * deleted (defining the type again brings them back). Built-ins cannot be removed. A refusal is data
 * (`{ok: false, reason}`), never a thrown error, as every RPC refusal of the platform.
 */
import type { PostTypeRemoval, PostTypeResult } from "../../lib/rpc";
import type { WorkerEnv } from "../core/bindings";
import { siteEnv } from "../core/groups";
import { isValidTypeSlug } from "../posts/slug";
import { BUILTIN_POST_TYPES, disablePostType, upsertPostType } from "./store";

const MAX_TYPE_NAME = 100;

export interface PostTypeDefinition {
  site_id: string;
  slug: string;
  name: string;
  public: boolean;
}

const isBuiltin = (slug: string) => BUILTIN_POST_TYPES.some((t) => t.slug === slug);

/**
 * The site's group (docs/decisions/site-groups.md). Content meets a site at its first push (`syncSite`, which
 * places it), so a site the directory does not know has no group to write to yet.
 */
async function siteDb(env: WorkerEnv, siteId: unknown): Promise<D1Database | null> {
  if (typeof siteId !== "string" || siteId === "") return null;
  return (await siteEnv(env, siteId))?.DB ?? null;
}

/** A define for a site content has not met (its first push not arrived): refused, sites answers it as a failure. */
export const SITE_NOT_SYNCED = "the site is not known to content yet (its first sync has not arrived)";

export async function definePostType(env: WorkerEnv, input: PostTypeDefinition): Promise<PostTypeResult> {
  if (!isValidTypeSlug(input.slug)) return { ok: false, reason: "post type slug must be a slug" };
  const name = typeof input.name === "string" ? input.name.trim() : "";
  if (name.length === 0 || name.length > MAX_TYPE_NAME)
    return { ok: false, reason: `post type name must have 1 to ${MAX_TYPE_NAME} characters` };
  if (typeof input.public !== "boolean") return { ok: false, reason: "post type public must be a boolean" };
  const db = await siteDb(env, input.site_id);
  if (!db) return { ok: false, reason: SITE_NOT_SYNCED };
  await upsertPostType(db, { ...input, name }, new Date().toISOString());
  return { ok: true };
}

/** Disables the type; a site content does not know has no type to disable (`removed: false`). */
export async function removePostType(
  env: WorkerEnv,
  input: { site_id: string; slug: string },
): Promise<PostTypeRemoval> {
  if (!isValidTypeSlug(input.slug)) return { ok: false, reason: "post type slug must be a slug" };
  if (isBuiltin(input.slug))
    return { ok: false, reason: `the built-in post type '${input.slug}' cannot be removed` };
  const db = await siteDb(env, input.site_id);
  return {
    ok: true,
    removed: db ? await disablePostType(db, input.site_id, input.slug, new Date().toISOString()) : false,
  };
}
