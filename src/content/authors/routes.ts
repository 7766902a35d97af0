/** `GET|POST /v1/authors`, `PATCH /v1/authors/{slug}` (issue 22, beyond the spec's table). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import type { AppEnv } from "../core/bindings";
import { edgePlace, sendPublicAnswer } from "../core/cacheable";
import type { KeyRequirement } from "../keys/api-key";
import { keyAuth } from "../keys/middleware";
import { FeaturedImageSchema } from "../posts/shapes";
import { authorsAnswer, authorView, createAuthor, editAuthor } from "./authors";

export const AuthorSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    bio: z.string().nullable(),
    avatar: FeaturedImageSchema.openapi({
      description: "The avatar's media asset as an image view; null without one",
    }),
    avatar_media_id: z.string().nullable().optional().openapi({ description: "ck_ keys only" }),
    created_at: z.string().optional().openapi({ description: "ck_ keys only" }),
    updated_at: z.string().optional().openapi({ description: "ck_ keys only" }),
  })
  .openapi("Author");

const AuthorFields = {
  name: z.string().trim().min(1).max(100),
  slug: z.string().min(1).max(64).openapi({ description: "Lowercase letters, digits and hyphens" }),
  bio: z.string().max(2000).nullable(),
  avatar_media_id: z
    .string()
    .nullable()
    .openapi({ description: "A media asset of the site; null clears it" }),
};
export const CreateAuthorSchema = z
  .strictObject(AuthorFields)
  .partial({ slug: true, bio: true, avatar_media_id: true })
  .openapi("CreateAuthor");
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

const WRITE_KEY: KeyRequirement = { kinds: "secret", scopes: ["posts:write"], quota: "write" };

const listAuthorsRoute = createRoute({
  method: "get",
  path: "/v1/authors",
  tags: ["Posts"],
  summary: "List the site's authors",
  description:
    "Scope posts:read. A ck_ key sees every author of the site with its dates; a pk_ key only the authors a public post names, with their public fields (slug, name, bio, avatar). At most 1,000, by slug. Cached like the post list.",
  ...keyAuth({ kinds: "any", scopes: ["posts:read"], quota: "read" }),
  request: { query: z.object({ key: z.string().optional() }) },
  responses: {
    200: json(z.object({ items: z.array(AuthorSchema) }).openapi("Authors"), "The authors"),
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

/** The author handlers, shared by the `/v1` key routes and the dashboard routes (src/content/dashboard/). */
export async function authorsListAnswer(c: Context<AppEnv>) {
  return sendPublicAnswer(c, await authorsAnswer(c.env, c.get("auth"), edgePlace(c)));
}

export async function createAuthorAnswer(c: Context<AppEnv>, body: z.infer<typeof CreateAuthorSchema>) {
  const row = await createAuthor(c.env, c.get("auth").siteId, body);
  return c.json(authorView(c.env, row, true), 201);
}

export async function updateAuthorAnswer(
  c: Context<AppEnv>,
  slug: string,
  body: z.infer<typeof UpdateAuthorSchema>,
) {
  const row = await editAuthor(c.env, c.get("auth").siteId, slug, body);
  return c.json(authorView(c.env, row, true), 200);
}

export function registerAuthorRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listAuthorsRoute, (c) => authorsListAnswer(c));
  app.openapi(createAuthorRoute, (c) => createAuthorAnswer(c, c.req.valid("json")));
  app.openapi(updateAuthorRoute, (c) =>
    updateAuthorAnswer(c, c.req.valid("param").slug, c.req.valid("json")),
  );
}
