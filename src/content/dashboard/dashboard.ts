/**
 * The dashboard routes (issue 34): a signed-in staff person edits a site's content as themselves under
 * `/api/v1/sites/{site_id}/…` (posts, their SEO, revisions and preview links; media; categories and tags;
 * authors; leads). They reach content through the gateway with the signed edge headers (like `…/api-keys`)
 * and call the SAME handler functions as their `/v1` twins: only the authentication differs (keys/person.ts
 * turns the person into the request's KeyContext). What each route needs, as a site permission
 * (src/lib/site-permissions.ts), is declared here once and read by both the document and the middleware.
 */
import { z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import type { PersonRequirement } from "../keys/person";

const SITE_ID_EXAMPLE = "01J9ZQ3V6K8T2M4N5P7R9S1W3Y";

export const SiteParam = z.object({
  site_id: z.string().openapi({ description: "The site's id (ULID or UUID)", example: SITE_ID_EXAMPLE }),
});

export const SitePostParam = SiteParam.extend({
  reference: z.string().min(1).openapi({ description: "ULID, UUID or slug", example: "hello-world" }),
});

export const SiteRevisionParam = SitePostParam.extend({
  id: z.string().openapi({ description: "The revision number", example: "3" }),
});

export const SiteMediaParam = SiteParam.extend({
  id: z.string().openapi({ description: "Media id (ULID or UUID)", example: "01J9ZQ4C1D2E3F4G5H6J7K8M9N" }),
});

export const SiteTermParam = SiteParam.extend({
  slug: z.string().min(1).openapi({ description: "The term's slug", example: "news" }),
});

export const SiteAuthorParam = SiteParam.extend({
  slug: z.string().min(1).openapi({ description: "The author's slug", example: "ana-souza" }),
});

/** A JSON response of the document: its schema and description. */
export const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** The dashboard's tag in the OpenAPI document. */
export const DASHBOARD_TAG = "Dashboard";

const read = (permission: PersonRequirement["anyOf"][0]): PersonRequirement => ({
  anyOf: [permission],
  quota: "read",
});

/** Each dashboard operation's permission (one of `anyOf`) and quota. */
export const NEEDS = {
  readPosts: read("posts:read"),
  createPost: { anyOf: ["posts:write_own"], quota: "write", quotaInHandler: true },
  /** Edit, delete, SEO, restore, preview: its own posts, or everyone's (part 2's rules decide per post). */
  editPost: { anyOf: ["posts:write_own", "posts:edit_any"], quota: "write" },
  publish: { anyOf: ["posts:publish"], quota: "write" },
  readMedia: read("media:read"),
  uploadMedia: { anyOf: ["media:upload"], quota: "write" },
  manageAuthors: { anyOf: ["authors:manage"], quota: "write" },
  manageTaxonomy: { anyOf: ["taxonomy:manage"], quota: "write" },
  readLeads: read("leads:read"),
} satisfies Record<string, PersonRequirement>;

/** The description's first sentence: who may call the operation. */
export function needsText(needs: PersonRequirement): string {
  return `Signed-in staff (Bearer access token, through the gateway) with the site permission ${needs.anyOf.join(" or ")}; the same operation as its /v1 twin.`;
}

/** The refusals every dashboard operation may answer. */
export const dashboardProblems = problemResponses({
  400: "Invalid body or parameter",
  401: "No signed-in staff session (UNAUTHENTICATED)",
  403: "The person lacks the operation's site permission (FORBIDDEN, details.missing names it)",
  404: "No such site for this person (missing, deleted, archived or not theirs), or no such resource of the site",
  429: "Quota exceeded (per person and site: the key's quotas)",
});
