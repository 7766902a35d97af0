/**
 * The dashboard's other content routes (issue 34): `/api/v1/sites/{site_id}/media[/{id}]`, `…/categories`,
 * `…/tags`, `…/authors[/{slug}]`, `…/leads[/{id}]` (audited, as with a key), for a signed-in person, each
 * calling its `/v1` twin's handler.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  AuthorSchema,
  AuthorsQuery,
  AuthorsSchema,
  authorsListAnswer,
  authorWriteProblems,
  CreateAuthorSchema,
  createAuthorAnswer,
  UpdateAuthorSchema,
  updateAuthorAnswer,
} from "../authors/routes";
import type { AppEnv } from "../core/bindings";
import { personAuth, requirePerson } from "../keys/middleware";
import { LeadListQuery, LeadPageSchema, leadAnswer, leadListAnswer } from "../leads/routes";
import { LeadSchema } from "../leads/shapes";
import {
  deleteMediaAnswer,
  listMediaAnswer,
  MediaAssetSchema,
  MediaListQuery,
  MediaListSchema,
  mediaAssetAnswer,
  mediaEditProblems,
  UPLOAD_BODY,
  UpdateMediaSchema,
  updateMediaAnswer,
  uploadMediaAnswer,
} from "../media/routes";
import {
  TermsQuery,
  TermsSchema,
  TermViewSchema,
  termEditProblems,
  termsAnswer,
  UpdateTermSchema,
  updateTermAnswer,
} from "../taxonomy/routes";
import {
  DASHBOARD_TAG,
  dashboardProblems,
  json,
  NEEDS,
  needsText,
  SiteAuthorParam,
  SiteMediaParam,
  SiteParam,
  SiteTermParam,
} from "./dashboard";

const SITE = "/api/v1/sites/{site_id}";

const listMediaRoute = createRoute({
  method: "get",
  path: `${SITE}/media`,
  tags: [DASHBOARD_TAG],
  summary: "List the site's media assets",
  description: `${needsText(NEEDS.readMedia)} As GET /v1/media with a ck_ key (every asset).`,
  ...personAuth(NEEDS.readMedia),
  request: { params: SiteParam, query: MediaListQuery.omit({ key: true }) },
  responses: { 200: json(MediaListSchema, "Assets"), ...dashboardProblems },
});

const uploadMediaRoute = createRoute({
  method: "post",
  path: `${SITE}/media`,
  tags: [DASHBOARD_TAG],
  summary: "Upload a media asset",
  description: `${needsText(NEEDS.uploadMedia)} As POST /v1/media (multipart/form-data, field \`file\`).`,
  security: personAuth(NEEDS.uploadMedia).security,
  request: { params: SiteParam, body: UPLOAD_BODY },
  responses: { 202: json(MediaAssetSchema, "Accepted (processing)"), ...dashboardProblems },
});

const getMediaRoute = createRoute({
  method: "get",
  path: `${SITE}/media/{id}`,
  tags: [DASHBOARD_TAG],
  summary: "Get a media asset",
  description: `${needsText(NEEDS.readMedia)} As GET /v1/media/{id}.`,
  ...personAuth(NEEDS.readMedia),
  request: { params: SiteMediaParam },
  responses: { 200: json(MediaAssetSchema, "The asset"), ...dashboardProblems },
});

const updateMediaRoute = createRoute({
  method: "patch",
  path: `${SITE}/media/{id}`,
  tags: [DASHBOARD_TAG],
  summary: "Edit a media asset's alt text and caption",
  description: `${needsText(NEEDS.uploadMedia)} As PATCH /v1/media/{id}.`,
  ...personAuth(NEEDS.uploadMedia),
  request: {
    params: SiteMediaParam,
    body: { content: { "application/json": { schema: UpdateMediaSchema } }, required: true },
  },
  responses: { 200: json(MediaAssetSchema, "The asset"), ...mediaEditProblems(), ...dashboardProblems },
});

const deleteMediaRoute = createRoute({
  method: "delete",
  path: `${SITE}/media/{id}`,
  tags: [DASHBOARD_TAG],
  summary: "Delete a media asset (soft delete)",
  description: `${needsText(NEEDS.uploadMedia)} As DELETE /v1/media/{id}.`,
  ...personAuth(NEEDS.uploadMedia),
  request: { params: SiteMediaParam },
  responses: { 204: { description: "Deleted" }, ...dashboardProblems },
});

function termsRoute(kind: "categories" | "tags") {
  return createRoute({
    method: "get",
    path: `${SITE}/${kind}`,
    tags: [DASHBOARD_TAG],
    summary: `List the site's ${kind} with their public post counts`,
    description: `${needsText(NEEDS.readPosts)} As GET /v1/${kind}.`,
    ...personAuth(NEEDS.readPosts),
    request: { params: SiteParam, query: TermsQuery.omit({ key: true }) },
    responses: {
      200: json(TermsSchema, "The terms"),
      304: { description: "Not modified" },
      ...dashboardProblems,
    },
  });
}
const categoriesRoute = termsRoute("categories");
const tagsRoute = termsRoute("tags");

function updateTermRoute(kind: "categories" | "tags") {
  return createRoute({
    method: "patch",
    path: `${SITE}/${kind}/{slug}`,
    tags: [DASHBOARD_TAG],
    summary: `Name or describe a ${kind === "categories" ? "category" : "tag"}`,
    description: `${needsText(NEEDS.manageTaxonomy)} As PATCH /v1/${kind}/{slug}.`,
    ...personAuth(NEEDS.manageTaxonomy),
    request: {
      params: SiteTermParam,
      body: { content: { "application/json": { schema: UpdateTermSchema } }, required: true },
    },
    responses: { 200: json(TermViewSchema, "The term as stored"), ...termEditProblems, ...dashboardProblems },
  });
}
const updateCategoryRoute = updateTermRoute("categories");
const updateTagRoute = updateTermRoute("tags");

const listAuthorsRoute = createRoute({
  method: "get",
  path: `${SITE}/authors`,
  tags: [DASHBOARD_TAG],
  summary: "List the site's authors",
  description: `${needsText(NEEDS.readPosts)} As GET /v1/authors with a ck_ key (every author, with dates).`,
  ...personAuth(NEEDS.readPosts),
  request: { params: SiteParam, query: AuthorsQuery.omit({ key: true }) },
  responses: {
    200: json(AuthorsSchema, "The authors"),
    304: { description: "Not modified" },
    ...dashboardProblems,
  },
});

const createAuthorRoute = createRoute({
  method: "post",
  path: `${SITE}/authors`,
  tags: [DASHBOARD_TAG],
  summary: "Create an author",
  description: `${needsText(NEEDS.manageAuthors)} As POST /v1/authors.`,
  ...personAuth(NEEDS.manageAuthors),
  request: {
    params: SiteParam,
    body: { content: { "application/json": { schema: CreateAuthorSchema } }, required: true },
  },
  responses: { 201: json(AuthorSchema, "Created"), ...authorWriteProblems, ...dashboardProblems },
});

const updateAuthorRoute = createRoute({
  method: "patch",
  path: `${SITE}/authors/{slug}`,
  tags: [DASHBOARD_TAG],
  summary: "Update an author (partial)",
  description: `${needsText(NEEDS.manageAuthors)} As PATCH /v1/authors/{slug}.`,
  ...personAuth(NEEDS.manageAuthors),
  request: {
    params: SiteAuthorParam,
    body: { content: { "application/json": { schema: UpdateAuthorSchema } }, required: true },
  },
  responses: { 200: json(AuthorSchema, "Updated"), ...authorWriteProblems, ...dashboardProblems },
});

const listLeadsRoute = createRoute({
  method: "get",
  path: `${SITE}/leads`,
  tags: [DASHBOARD_TAG],
  summary: "List the site's leads (audited)",
  description: `${needsText(NEEDS.readLeads)} As GET /v1/leads: 10 lead reads a minute per person and site, every read audited with the person.`,
  ...personAuth(NEEDS.readLeads),
  request: { params: SiteParam, query: LeadListQuery },
  responses: { 200: json(LeadPageSchema, "A page of leads"), ...dashboardProblems },
});

const getLeadRoute = createRoute({
  method: "get",
  path: `${SITE}/leads/{id}`,
  tags: [DASHBOARD_TAG],
  summary: "Get a lead (audited)",
  description: `${needsText(NEEDS.readLeads)} As GET /v1/leads/{id}.`,
  ...personAuth(NEEDS.readLeads),
  request: {
    params: SiteParam.extend({
      id: z
        .string()
        .openapi({ description: "Lead id (ULID or UUID)", example: "01J9ZQ5A1B2C3D4E5F6G7H8J9K" }),
    }),
  },
  responses: { 200: json(LeadSchema, "The lead"), ...dashboardProblems },
});

/** A dashboard answer is the person's own: never kept by a shared cache, whatever its `/v1` twin says. */
function personal(res: Response): Response {
  res.headers.set("cache-control", "private, no-store");
  return res;
}

export function registerDashboardContentRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listMediaRoute, (c) => listMediaAnswer(c, c.req.valid("query")));
  app.openAPIRegistry.registerPath(uploadMediaRoute);
  app.post(
    `${SITE}/media`.replace("{site_id}", ":site_id"),
    requirePerson(NEEDS.uploadMedia),
    uploadMediaAnswer,
  );
  app.openapi(getMediaRoute, (c) => mediaAssetAnswer(c, c.req.valid("param").id));
  app.openapi(updateMediaRoute, (c) => updateMediaAnswer(c, c.req.valid("param").id, c.req.valid("json")));
  app.openapi(deleteMediaRoute, (c) => deleteMediaAnswer(c, c.req.valid("param").id));
  app.openapi(categoriesRoute, async (c) =>
    personal(await termsAnswer(c, "categories", c.req.valid("query"))),
  );
  app.openapi(tagsRoute, async (c) => personal(await termsAnswer(c, "tags", c.req.valid("query"))));
  app.openapi(updateCategoryRoute, (c) =>
    updateTermAnswer(c, "categories", c.req.valid("param").slug, c.req.valid("json")),
  );
  app.openapi(updateTagRoute, (c) =>
    updateTermAnswer(c, "tags", c.req.valid("param").slug, c.req.valid("json")),
  );
  app.openapi(listAuthorsRoute, async (c) => personal(await authorsListAnswer(c, c.req.valid("query"))));
  app.openapi(createAuthorRoute, (c) => createAuthorAnswer(c, c.req.valid("json")));
  app.openapi(updateAuthorRoute, (c) =>
    updateAuthorAnswer(c, c.req.valid("param").slug, c.req.valid("json")),
  );
  app.openapi(listLeadsRoute, (c) => leadListAnswer(c, c.req.valid("query")));
  app.openapi(getLeadRoute, (c) => leadAnswer(c, c.req.valid("param").id));
}
