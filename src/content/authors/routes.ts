/** `GET|POST /v1/authors`, `PATCH /v1/authors/{slug}` (issue 22, beyond the spec's table). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import type { AppEnv } from "../core/bindings";
import { edgePlace, sendPublicAnswer } from "../core/cacheable";
import { includeQuery, includesTotal } from "../core/list-include";
import { fail } from "../errors";
import type { KeyRequirement } from "../keys/api-key";
import { keyAuth } from "../keys/middleware";
import { FeaturedImageSchema } from "../posts/shapes";
import { type AuthorInput, authorsAnswer, authorView, createAuthor, editAuthor } from "./authors";

export const AuthorSchema = z
  .object({
    slug: z.string(),
    display_name: z.string().openapi({
      description: "The author's name, as a post's author.display_name shows it (issue 35: one field)",
    }),
    bio: z.string().nullable(),
    avatar: FeaturedImageSchema.openapi({
      description: "The avatar's media asset as an image view; null without one",
    }),
    avatar_media_id: z.string().nullable().optional().openapi({ description: "ck_ keys only" }),
    created_at: z.string().optional().openapi({ description: "ck_ keys only" }),
    updated_at: z.string().optional().openapi({ description: "ck_ keys only" }),
  })
  .openapi("Author");

const AuthorName = z.string().trim().min(1).max(100);
const AuthorFields = {
  display_name: AuthorName,
  name: AuthorName.openapi({
    deprecated: true,
    description: "The former name of display_name, still accepted; send one of the two",
  }),
  slug: z.string().min(1).max(64).openapi({ description: "Lowercase letters, digits and hyphens" }),
  bio: z.string().max(2000).nullable(),
  avatar_media_id: z
    .string()
    .nullable()
    .openapi({ description: "A media asset of the site; null clears it" }),
};
export const CreateAuthorSchema = z
  .strictObject(AuthorFields)
  .partial()
  .openapi("CreateAuthor", { description: "display_name (or its former name, name) is required" });
export const UpdateAuthorSchema = z.strictObject(AuthorFields).partial().openapi("UpdateAuthor");

const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const authorWriteProblems = problemResponses({
  400: "Invalid body, or nothing editable",
  401: "Key missing or invalid",
  403: "Insufficient scope, or not a ck_ key",
  409: "The slug is another author's (SLUG_TAKEN)",
  422: "avatar_media_id is not a media asset of the site (UNKNOWN_MEDIA)",
  429: "Quota exceeded",
});

export const AuthorsQuery = z.object({ include: includeQuery(), key: z.string().optional() });

export const AuthorsSchema = z
  .object({
    items: z.array(AuthorSchema),
    total: z.number().int().optional().openapi({
      description: "With include=total: how many authors the key may see in all (the list stops at 1,000)",
    }),
  })
  .openapi("Authors");

const WRITE_KEY: KeyRequirement = { kinds: "secret", scopes: ["posts:write"], quota: "write" };

const listAuthorsRoute = createRoute({
  method: "get",
  path: "/v1/authors",
  tags: ["Posts"],
  summary: "List the site's authors",
  description:
    "Scope posts:read. A ck_ key sees every author of the site with its dates; a pk_ key only the authors a public post names, with their public fields (slug, display_name, bio, avatar). include=total adds total. At most 1,000, by slug. Cached like the post list.",
  ...keyAuth({ kinds: "any", scopes: ["posts:read"], quota: "read" }),
  request: { query: AuthorsQuery },
  responses: {
    200: json(AuthorsSchema, "The authors"),
    304: { description: "Not modified" },
    ...problemResponses({
      401: "Key missing or invalid",
      403: "Insufficient scope, or a pk_ key from an origin outside its allowlist",
      429: "Quota exceeded",
    }),
  },
});

const createAuthorRoute = createRoute({
  method: "post",
  path: "/v1/authors",
  tags: ["Posts"],
  summary: "Create an author",
  description:
    "Scope posts:write (ck_). A post names it with author_slug. Without slug, one is derived from the name (-2, -3, … when taken); an explicit slug already used is 409 SLUG_TAKEN.",
  ...keyAuth(WRITE_KEY),
  request: { body: { content: { "application/json": { schema: CreateAuthorSchema } }, required: true } },
  responses: { 201: json(AuthorSchema, "Created"), ...authorWriteProblems },
});

const updateAuthorRoute = createRoute({
  method: "patch",
  path: "/v1/authors/{slug}",
  tags: ["Posts"],
  summary: "Update an author (partial)",
  description:
    "Scope posts:write (ck_). Only sent fields change; a new slug or name is also the byline of the author's posts (same batch). Another site's or an unknown slug is 404.",
  ...keyAuth(WRITE_KEY),
  request: {
    params: z.object({ slug: z.string().min(1) }),
    body: { content: { "application/json": { schema: UpdateAuthorSchema } }, required: true },
  },
  responses: {
    200: json(AuthorSchema, "Updated"),
    ...authorWriteProblems,
    ...problemResponses({ 404: "No such author (or another site's)" }),
  },
});

/**
 * An author body as the store takes it: `display_name`, or its former name `name` (both sent must agree).
 */
function authorInput(body: z.infer<typeof UpdateAuthorSchema>): AuthorInput {
  const { display_name, name, ...rest } = body;
  if (display_name !== undefined && name !== undefined && display_name !== name) {
    fail("BAD_REQUEST", {
      detail: "Send display_name only (name is its former name).",
      details: { path: "name" },
    });
  }
  const value = display_name ?? name;
  return { ...rest, ...(value !== undefined ? { name: value } : {}) };
}

/** The author handlers, shared by the `/v1` key routes and the dashboard routes (src/content/dashboard/). */
export async function authorsListAnswer(c: Context<AppEnv>, query: { include?: string | undefined }) {
  const total = includesTotal(query.include);
  return sendPublicAnswer(c, await authorsAnswer(c.env, c.get("auth"), total, edgePlace(c)));
}

export async function createAuthorAnswer(c: Context<AppEnv>, body: z.infer<typeof CreateAuthorSchema>) {
  const { name, ...rest } = authorInput(body);
  if (name === undefined) {
    fail("BAD_REQUEST", { detail: "display_name is required.", details: { path: "display_name" } });
  }
  const row = await createAuthor(c.env, c.get("auth").siteId, { ...rest, name });
  return c.json(authorView(c.env, row, true), 201);
}

export async function updateAuthorAnswer(
  c: Context<AppEnv>,
  slug: string,
  body: z.infer<typeof UpdateAuthorSchema>,
) {
  const row = await editAuthor(c.env, c.get("auth").siteId, slug, authorInput(body));
  return c.json(authorView(c.env, row, true), 200);
}

export function registerAuthorRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listAuthorsRoute, (c) => authorsListAnswer(c, c.req.valid("query")));
  app.openapi(createAuthorRoute, (c) => createAuthorAnswer(c, c.req.valid("json")));
  app.openapi(updateAuthorRoute, (c) =>
    updateAuthorAnswer(c, c.req.valid("param").slug, c.req.valid("json")),
  );
}
