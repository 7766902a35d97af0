/**
 * A site's post type catalogue (RPC, for the sites service: applets define their types on install and
 * remove them on uninstall). A site starts with the built-in `post` and `page` (created once, with the
 * site's first push); `definePostType` creates or updates a type; `removePostType` disables it: it is
 * no longer listed nor accepted for new posts, and its posts leave public view but are kept, never
 * deleted (defining the type again brings them back). Built-ins cannot be removed. A refusal is data
 * (`{ok: false, reason}`), never a thrown error, as every RPC refusal of the platform.
 */
import type { PostTypeRemoval, PostTypeResult } from "../../lib/rpc";
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

export async function definePostType(db: D1Database, input: PostTypeDefinition): Promise<PostTypeResult> {
  if (!isValidTypeSlug(input.slug)) return { ok: false, reason: "post type slug must be a slug" };
  const name = typeof input.name === "string" ? input.name.trim() : "";
  if (name.length === 0 || name.length > MAX_TYPE_NAME)
    return { ok: false, reason: `post type name must have 1 to ${MAX_TYPE_NAME} characters` };
  if (typeof input.public !== "boolean") return { ok: false, reason: "post type public must be a boolean" };
  await upsertPostType(db, { ...input, name }, new Date().toISOString());
  return { ok: true };
}

export async function removePostType(
  db: D1Database,
  input: { site_id: string; slug: string },
): Promise<PostTypeRemoval> {
  if (!isValidTypeSlug(input.slug)) return { ok: false, reason: "post type slug must be a slug" };
  if (isBuiltin(input.slug))
    return { ok: false, reason: `the built-in post type '${input.slug}' cannot be removed` };
  return {
    ok: true,
    removed: await disablePostType(db, input.site_id, input.slug, new Date().toISOString()),
  };
}
