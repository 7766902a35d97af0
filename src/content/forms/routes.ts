/**
 * Forms: administration by site staff through the edge (`/api/v1/sites/{site_id}/forms`), and the two
 * anonymous routes a site's pages use: the form's definition with a fresh token, and the submission.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problemResponses } from "../../lib/app";
import type { AppEnv } from "../core/bindings";
import { routeToSite } from "../core/routing";
import { authorizeSiteAdmin, clientIp } from "../keys/middleware";
import { createForm, deleteForm, listForms, requireFormsArea } from "./admin";
import { FIELD_NAME, FIELD_TYPES, MAX_FIELDS } from "./fields";
import { SPAM_RULES } from "./spam";
import {
  formForVisitors,
  formNotFound,
  HONEYPOT_FIELD,
  PAGE_FIELD,
  SUBMISSION_BUCKET,
  SUBMISSION_BURST,
  SUBMISSION_MAX_BYTES,
  submitLead,
  TOKEN_FIELD,
} from "./submission";

const SiteParam = z.object({ site_id: z.string().openapi({ description: "Site id (ULID or UUID)" }) });
const FormParams = SiteParam.extend({ form_id: z.string().openapi({ description: "Form id (ULID)" }) });

const FormFieldInputSchema = z
  .object({
    name: z.string().regex(FIELD_NAME).openapi({
      description:
        "Field name: a-z, 0-9, _, starting with a letter, at most 40; not id, created_at, status, spam_reasons or page_url",
    }),
    label: z.string().trim().min(1).max(100).optional(),
    type: z.enum(FIELD_TYPES),
    required: z.boolean().optional(),
    max_length: z.number().int().min(1).optional().openapi({
      description:
        "Text types only: default/ceiling text 200/1000, email 254/254, tel 32/32, url 2048/2048, textarea 5000/10000",
    }),
    options: z.array(z.string().trim().min(1).max(100)).min(1).max(50).optional().openapi({
      description: "select only (required there)",
    }),
  })
  .strict()
  .openapi("FormFieldInput");

const FormFieldSchema = z
  .object({
    name: z.string(),
    label: z.string(),
    type: z.enum(FIELD_TYPES),
    required: z.boolean(),
    max_length: z.number().int().nullable(),
    options: z.array(z.string()).nullable(),
  })
  .openapi("FormField");

const CreateFormBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    fields: z.array(FormFieldInputSchema).min(1).max(MAX_FIELDS),
  })
  .openapi("CreateForm");

const FormSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    fields: z.array(FormFieldSchema),
    created_by: z.string(),
    created_at: z.string(),
  })
  .openapi("Form");

const VisitorFormSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    fields: z.array(FormFieldSchema),
    token: z.string().openapi({ description: `Send back as ${TOKEN_FIELD}` }),
    honeypot_field: z.literal(HONEYPOT_FIELD),
    token_field: z.literal(TOKEN_FIELD),
    page_field: z.literal(PAGE_FIELD),
  })
  .openapi("VisitorForm");

const staffProblems = problemResponses({
  400: "Invalid body",
  401: "No signed-in staff session",
  404: "No such site, the caller may not administer it, or the forms app is off",
});

const SUBMISSION_RULES = [
  `Anonymous. JSON object or application/x-www-form-urlencoded, at most ${SUBMISSION_MAX_BYTES} bytes (413), other types 415.`,
  "Declared fields are validated (400 INVALID_FIELD with details.field); undeclared names are ignored.",
  `Reserved: ${HONEYPOT_FIELD} (honeypot input, rendered hidden; must stay empty), ${TOKEN_FIELD} (the token of GET …/forms/{form_id}), ${PAGE_FIELD} (the page URL, optional).`,
  "Spam is stored with status spam and its spam_reasons, and answered like a clean submission:",
  `honeypot (${HONEYPOT_FIELD} filled in); no_token, bad_token, too_fast, stale_token (token missing, not verifying, younger than ${SPAM_RULES.minFillMs / 1000} s or older than 24 h);`,
  `links (more than ${SPAM_RULES.maxLinks} outside url fields); rate (more than ${SUBMISSION_BURST} quick submissions per site and IP);`,
  `duplicate (the same values to the same form within ${SPAM_RULES.duplicateWindowMs / 60_000} minutes); reused_token (a token is good for one submission: every later one with it, racing ones included).`,
  `Per (site, client IP) ${SUBMISSION_BUCKET.capacity} submissions, one more every ${SUBMISSION_BUCKET.windowSeconds / SUBMISSION_BUCKET.capacity} s: beyond, 429 with Retry-After.`,
  "No such site or form, another site's form, a deleted form, the forms app off or a site that is not live: the same 404.",
].join(" ");

const createFormRoute = createRoute({
  method: "post",
  path: "/api/v1/sites/{site_id}/forms",
  tags: ["Forms"],
  summary: "Create a form of the site (staff, through the edge)",
  request: {
    params: SiteParam,
    body: { content: { "application/json": { schema: CreateFormBody } }, required: true },
  },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: FormSchema } } },
    ...staffProblems,
  },
});

const listFormsRoute = createRoute({
  method: "get",
  path: "/api/v1/sites/{site_id}/forms",
  tags: ["Forms"],
  summary: "List the site's forms (staff, through the edge)",
  request: { params: SiteParam },
  responses: {
    200: {
      description: "Forms, newest first",
      content: { "application/json": { schema: z.object({ items: z.array(FormSchema) }) } },
    },
    ...staffProblems,
  },
});

const deleteFormRoute = createRoute({
  method: "delete",
  path: "/api/v1/sites/{site_id}/forms/{form_id}",
  tags: ["Forms"],
  summary: "Delete a form (submissions stop; its leads stay)",
  request: { params: FormParams },
  responses: { 204: { description: "Deleted" }, ...staffProblems },
});

const getPublicFormRoute = createRoute({
  method: "get",
  path: "/v1/sites/{site_id}/forms/{form_id}",
  tags: ["Forms"],
  summary: "A form's fields and a fresh form token, for the site's pages (anonymous)",
  description: `Anonymous. The token stamps the time the form was handed out; a submission sent back within ${SPAM_RULES.minFillMs / 1000} s of it is spam (too_fast). Same 404 as the submission.`,
  request: { params: FormParams },
  responses: {
    200: { description: "The form", content: { "application/json": { schema: VisitorFormSchema } } },
    ...problemResponses({ 404: "No such form (any reason)" }),
  },
});

const submitFormRoute = createRoute({
  method: "post",
  path: "/v1/sites/{site_id}/forms/{form_id}/submissions",
  tags: ["Forms"],
  summary: "Submit a form (anonymous)",
  description: SUBMISSION_RULES,
  request: {
    params: FormParams,
    body: {
      required: true,
      content: {
        "application/json": { schema: z.record(z.string(), z.unknown()) },
        "application/x-www-form-urlencoded": { schema: z.record(z.string(), z.string()) },
      },
    },
  },
  responses: {
    202: {
      description: "Received (clean or spam alike)",
      content: { "application/json": { schema: z.object({ status: z.literal("received") }) } },
    },
    ...problemResponses({
      400: "A declared field is invalid or missing (details.field), or the body is malformed",
      404: "No such form (any reason)",
      413: `Body above ${SUBMISSION_MAX_BYTES} bytes`,
      415: "Neither JSON nor form-encoded",
      429: "Too many submissions from this address",
    }),
  },
});

/** The staff caller who administers the `{site_id}` site's forms, the request routed to its group. */
async function formsAdmin(c: Context<AppEnv>) {
  const caller = await authorizeSiteAdmin(c);
  return requireFormsArea(c.env.DB, caller);
}

export function registerFormRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(createFormRoute, async (c) => {
    const { userId, site } = await formsAdmin(c);
    return c.json(await createForm(c.env.DB, site.id, userId, c.req.valid("json")), 201);
  });

  app.openapi(listFormsRoute, async (c) => {
    const { site } = await formsAdmin(c);
    c.header("cache-control", "private, no-store");
    return c.json({ items: await listForms(c.env.DB, site.id) }, 200);
  });

  app.openapi(deleteFormRoute, async (c) => {
    const { site } = await formsAdmin(c);
    await deleteForm(c.env.DB, site.id, c.req.param("form_id"));
    return c.body(null, 204);
  });

  app.openapi(getPublicFormRoute, async (c) => {
    const { site_id, form_id } = c.req.valid("param");
    c.header("cache-control", "no-store");
    const env = await routeToSite(c, site_id, formNotFound);
    return c.json(await formForVisitors(env, site_id, form_id, Date.now()), 200);
  });

  app.openAPIRegistry.registerPath(submitFormRoute);
  app.post("/v1/sites/:site_id/forms/:form_id/submissions", async (c) => {
    // A site content does not know is a form that does not exist (checked first, as the form is).
    const env = await routeToSite(c, c.req.param("site_id"), formNotFound);
    const lead = await submitLead(env, {
      siteId: c.req.param("site_id"),
      formId: c.req.param("form_id"),
      request: c.req.raw,
      ip: clientIp(c),
      nowMs: Date.now(),
    });
    c.get("log").info("lead_received", { form_id: c.req.param("form_id"), ...lead });
    c.header("cache-control", "no-store");
    return c.json({ status: "received" as const }, 202);
  });
}
