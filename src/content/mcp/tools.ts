/**
 * The MCP tools of the content API: each is one operation of the service's OpenAPI document (method and
 * path), and everything else about it is read from that document, i.e. from the zod schemas the route
 * validates with: its input schema (the operation's path, query and header parameters and its JSON body,
 * `$ref`s inlined), the scopes that make it visible (the operation's `apiKey` security requirements) and
 * the reference text of its description.
 */
import type { Tool, ToolAnnotations } from "@modelcontextprotocol/server";
import type { Scope } from "../keys/scopes";

/** What a tool is, beyond its operation. */
export interface ToolSpec {
  name: string;
  title: string;
  /** What an agent does with it (the operation's own description follows). */
  intro: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The operation's path as the OpenAPI document writes it. */
  path: string;
  /** The argument that carries the JSON request body (the operation's `application/json` schema). */
  body?: string;
  /** Instead of a JSON body, the tool fetches an image by URL (image ingest) and uploads it as the form's `file`. */
  fileFromUrl?: true;
  /** Instead of a JSON body, the tool takes the image's bytes as base64 (`data`) and uploads them as the form's `file`. */
  fileFromBytes?: true;
  /**
   * The tool deletes: it first reads what it deletes through the GET operation `read` (the same arguments),
   * then deletes that very resource by the id read (the path parameter `byId`), and answers what it deleted.
   */
  deletesAfterReading?: { read: string; byId: string };
  annotations: ToolAnnotations;
}

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const EDIT: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true };

export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: "list_posts",
    title: "List posts",
    intro:
      "List the site's public posts (newest first, keyset pages: pass next_cursor as cursor). With `status` (posts:write), list drafts, scheduled, published and archived posts instead.",
    method: "GET",
    path: "/v1/posts",
    annotations: READ,
  },
  {
    name: "get_post",
    title: "Read a public post",
    intro:
      "Read one public post by id or slug, with its rendered HTML. Drafts and scheduled posts are not found here: use get_post_source.",
    method: "GET",
    path: "/v1/posts/{reference}",
    annotations: READ,
  },
  {
    name: "get_post_source",
    title: "Read the editable source of a post",
    intro:
      "Read any post of the site (drafts and scheduled included) as stored: metadata, taxonomy and blocks_json, to modify and send back with update_post.",
    method: "GET",
    path: "/v1/posts/{reference}/source",
    annotations: READ,
  },
  {
    name: "create_post",
    title: "Create a post",
    intro:
      "Create a post from `post` (a CreatePost body). status published publishes it now (or schedules it with a future published_at). Pass idempotency_key to make a retry safe.",
    method: "POST",
    path: "/v1/posts",
    body: "post",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  },
  {
    name: "update_post",
    title: "Update a post",
    intro:
      "Change the fields sent in `changes` (an UpdatePost body) of the post `reference`; e.g. {status: published} publishes a draft. `language` only disambiguates a slug; to change the post's language send it inside changes.",
    method: "PATCH",
    path: "/v1/posts/{reference}",
    body: "changes",
    annotations: EDIT,
  },
  {
    name: "unpublish_post",
    title: "Unpublish a post",
    intro: "Take a published post off the site (published -> archived); it stays in the archive.",
    method: "POST",
    path: "/v1/posts/{reference}/unpublish",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  },
  {
    name: "get_post_seo",
    title: "Read SEO of a post",
    intro: "Read the SEO fields of a public post.",
    method: "GET",
    path: "/v1/posts/{reference}/seo",
    annotations: READ,
  },
  {
    name: "update_post_seo",
    title: "Update SEO of a post",
    intro: "Merge the SEO fields sent in `seo` (a PostSeo body; null removes a field) into the post's SEO.",
    method: "PATCH",
    path: "/v1/posts/{reference}/seo",
    body: "seo",
    annotations: EDIT,
  },
  {
    name: "upload_media_from_url",
    title: "Upload an image from a URL",
    intro:
      "Fetch the image at `url` (public http(s) hosts only, through the platform's SSRF-safe image ingest) and upload it as a media asset of the site, exactly as POST /v1/media would; use the answer's id as featured_image_id.",
    method: "POST",
    path: "/v1/media",
    fileFromUrl: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  {
    name: "upload_media",
    title: "Upload an image",
    intro:
      "Upload an image given as its bytes: `data` is the file in base64 (at most 8 MiB decoded; PNG, JPEG, GIF, WebP, AVIF, ICO or a safe SVG, judged from the bytes), uploaded as a media asset of the site exactly as POST /v1/media would; use the answer's id as featured_image_id. For an image on the web, upload_media_from_url.",
    method: "POST",
    path: "/v1/media",
    fileFromBytes: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  {
    name: "list_post_types",
    title: "List post types",
    intro: "List the site's post types (the post_type values a post may take).",
    method: "GET",
    path: "/v1/post-types",
    annotations: READ,
  },
  {
    name: "get_site",
    title: "Read the site",
    intro: "Read the key's site: name, default language, canonical host and URL.",
    method: "GET",
    path: "/v1/site",
    annotations: READ,
  },
  {
    name: "get_site_settings",
    title: "Read site settings",
    intro: "Read the site's editable settings (an allowlist of keys).",
    method: "GET",
    path: "/v1/site/settings",
    annotations: READ,
  },
  {
    name: "get_site_seo",
    title: "Read site SEO",
    intro: "Read the site-level SEO defaults.",
    method: "GET",
    path: "/v1/site/seo",
    annotations: READ,
  },
  {
    name: "update_site_seo",
    title: "Update site SEO",
    intro: "Merge the site-level SEO fields sent in `seo` (a SiteSeo body) into the site's SEO defaults.",
    method: "PATCH",
    path: "/v1/site/seo",
    body: "seo",
    annotations: EDIT,
  },
  {
    name: "list_media",
    title: "List media",
    intro:
      "List the site's media assets, newest first (id, URL, type, status); use an id as featured_image_id.",
    method: "GET",
    path: "/v1/media",
    annotations: READ,
  },
  {
    name: "search_posts",
    title: "Search posts",
    intro:
      "Full-text search of the site's posts (title, summary and body) in one language, best match first; with posts:write drafts and scheduled posts are found too.",
    method: "GET",
    path: "/v1/search",
    annotations: READ,
  },
  {
    name: "list_post_revisions",
    title: "List revisions of a post",
    intro: "List the saved revisions of a post (title, summary, body and SEO of each change), newest first.",
    method: "GET",
    path: "/v1/posts/{reference}/revisions",
    annotations: READ,
  },
  {
    name: "restore_post_revision",
    title: "Restore a revision of a post",
    intro:
      "Write revision `id` (from list_post_revisions) back onto the post: its title, summary, body and SEO; the restore is itself a new revision. Pass if_match (the post's ETag) to refuse when the post changed meanwhile.",
    method: "POST",
    path: "/v1/posts/{reference}/revisions/{id}/restore",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: "delete_post",
    title: "Delete a post",
    intro:
      "Delete a post (soft delete): it leaves every public read and listing at once, its URL is purged and its slug is free again. Cannot be undone through the API. Answers what it deleted: id, slug, title, language and status_before (the post is read first, which costs one read of the key's quota).",
    method: "DELETE",
    path: "/v1/posts/{reference}",
    deletesAfterReading: { read: "/v1/posts/{reference}/source", byId: "reference" },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: "list_categories",
    title: "List categories",
    intro:
      "List the site's categories with the number of public posts in each (per language with `language`).",
    method: "GET",
    path: "/v1/categories",
    annotations: READ,
  },
  {
    name: "list_tags",
    title: "List tags",
    intro:
      "List the site's tags with the number of public posts carrying each (per language with `language`).",
    method: "GET",
    path: "/v1/tags",
    annotations: READ,
  },
  {
    name: "update_category",
    title: "Rename or describe a category",
    intro:
      "Give a category its display name and description (`changes`: name, description); its slug and its posts stay.",
    method: "PATCH",
    path: "/v1/categories/{slug}",
    body: "changes",
    annotations: EDIT,
  },
  {
    name: "update_tag",
    title: "Rename or describe a tag",
    intro:
      "Give a tag its display name and description (`changes`: name, description); its slug and its posts stay.",
    method: "PATCH",
    path: "/v1/tags/{slug}",
    body: "changes",
    annotations: EDIT,
  },
  {
    name: "update_media",
    title: "Describe an image",
    intro:
      "Set an uploaded image's alt text and caption (`changes`: alt, caption); posts that show it use them (featured_image.alt, <img alt>, <figcaption>).",
    method: "PATCH",
    path: "/v1/media/{id}",
    body: "changes",
    annotations: EDIT,
  },
  {
    name: "list_authors",
    title: "List authors",
    intro:
      "List the site's authors (bylines): slug, display_name, bio and avatar; use a slug as a post's author_slug.",
    method: "GET",
    path: "/v1/authors",
    annotations: READ,
  },
  {
    name: "create_author",
    title: "Create an author",
    intro:
      "Create a byline (`author`: display_name, optional slug, bio and avatar media id) that posts can name by slug.",
    method: "POST",
    path: "/v1/authors",
    body: "author",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  {
    name: "update_author",
    title: "Update an author",
    intro:
      "Change an author's display_name, bio, avatar or slug (`changes`); the byline of its posts follows.",
    method: "PATCH",
    path: "/v1/authors/{slug}",
    body: "changes",
    annotations: EDIT,
  },
  {
    name: "export",
    title: "Export",
    intro:
      "Export the site's posts (whole collection with blocks_json, NDJSON, re-importable), leads or analytics, as text.",
    method: "GET",
    path: "/v1/export",
    annotations: READ,
  },
];

/** The tool of image bytes (its message may exceed the MCP body cap: routes.ts). */
export const UPLOAD_MEDIA_TOOL = "upload_media";

/** Where an argument goes in the HTTP request. */
export interface Argument {
  in: "path" | "query" | "header" | "body" | "form" | "url" | "bytes";
  /** The parameter's (or form field's) name in the request. */
  name: string;
  required: boolean;
}

/** A tool as the server lists and runs it. */
export interface ToolDefinition {
  spec: ToolSpec;
  tool: Tool;
  /** Argument name -> where it goes. */
  arguments: Record<string, Argument>;
  /** Any one of these scope sets makes the tool visible (the operation's `apiKey` requirements). */
  scopeSets: Scope[][];
}

/** A visible tool: the key carries every scope of one of the operation's `apiKey` requirements. */
export function toolVisible(definition: ToolDefinition, scopes: ReadonlySet<Scope>): boolean {
  return definition.scopeSets.some((set) => set.every((s) => scopes.has(s)));
}
