/**
 * `GET /v1/auth/me` (beyond the spec, issue 23): what a dashboard's first screen shows, in one call: the
 * account (id, primary address, the factors present, created), its organizations with names and the
 * caller's role, and its site memberships. One D1 batch, so the answer is one consistent reading. Each
 * list is bounded (MAX_LISTED, as `GET /auth/orgs` is); `*_truncated` says when more exist.
 * `PATCH /api/v1/auth/me` (issue 34) sets the account's `display_name`: the byline of the posts the person
 * writes on the dashboard (content reads it with a write's grant, `IdentityRpc.siteGrant`); and (issue 36)
 * its `locale`, the language of the mail it receives (docs/decisions/mail.md).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { problemResponses } from "../../lib/app";
import { batch } from "../../lib/sql";
import { bearerAuth } from "../core/auth";
import type { AppEnv } from "../core/context";
import { jsonBody, jsonResponse } from "../core/schemas";
import { fail } from "../errors";
import { isLocale, LOCALES } from "../messaging/messages";
import { type AccountRow, meQueries, updateAccount } from "./me-store";

export const MAX_LISTED = 500;

const FACTORS = ["password", "totp", "passkey", "phone", "recovery_codes"] as const;

const MeSchema = z
  .object({
    id: z.string(),
    email: z.string().nullable().openapi({ description: "The primary address" }),
    display_name: z.string().nullable().openapi({
      description:
        "The name the person's posts are bylined with (never the address); null until set (PATCH /api/v1/auth/me)",
    }),
    locale: z.enum(LOCALES).openapi({
      description: "The language of the mail the account receives (set at sign-up from Accept-Language)",
    }),
    created_at: z.string(),
    factors: z.array(z.enum(FACTORS)).openapi({
      description:
        "The sign-in factors present: a password, a confirmed TOTP, passkeys, a verified phone, unused recovery codes",
    }),
    organizations: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        slug: z.string(),
        role: z.string(),
        owner: z.boolean().openapi({ description: "The role is the structural owner role (is_system)" }),
      }),
    ),
    organizations_truncated: z.boolean(),
    site_memberships: z.array(
      z.object({
        site_id: z.string(),
        org_id: z.string().nullable(),
        role: z.string(),
        owner: z.boolean(),
      }),
    ),
    site_memberships_truncated: z.boolean(),
  })
  .openapi("Me");

type Me = z.infer<typeof MeSchema>;

function factorsOf(a: AccountRow): Me["factors"] {
  const present = {
    password: a.has_password === 1,
    totp: a.totp > 0,
    passkey: a.passkeys > 0,
    phone: a.phones > 0,
    recovery_codes: a.recovery > 0,
  };
  return FACTORS.filter((f) => present[f]);
}

export async function readMe(db: D1Database, userId: string): Promise<Me | null> {
  const [account, orgs, sites] = await batch(db, meQueries(db, userId, MAX_LISTED + 1));
  const a = account.rows[0];
  if (!a) return null;
  const orgRows = orgs.rows;
  const siteRows = sites.rows;
  return {
    id: a.id,
    email: a.email,
    display_name: a.display_name,
    locale: isLocale(a.locale) ? a.locale : "en",
    created_at: a.created_at,
    factors: factorsOf(a),
    organizations: orgRows.slice(0, MAX_LISTED).map((o) => ({ ...o, owner: o.owner === 1 })),
    organizations_truncated: orgRows.length > MAX_LISTED,
    site_memberships: siteRows.slice(0, MAX_LISTED).map((s) => ({ ...s, owner: s.owner === 1 })),
    site_memberships_truncated: siteRows.length > MAX_LISTED,
  };
}

const getMeRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/me",
  tags: ["Account"],
  summary: "The caller's account, organizations and site memberships (a dashboard's first screen)",
  description: "Beyond the spec (issue 23).",
  ...bearerAuth,
  responses: {
    200: jsonResponse("The caller", MeSchema),
    ...problemResponses({ 401: "UNAUTHENTICATED, TOKEN_EXPIRED" }),
  },
});

/** Control characters (C0, DEL, C1): never part of a byline. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A display name: trimmed, 1..120 characters, no control characters. */
const DisplayNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(120)
  .refine((v) => !CONTROL.test(v), { message: "display_name must not contain control characters" })
  .openapi({ description: "Trimmed, 1..120 characters, no control characters", example: "Ada Lovelace" });

/** A locale the platform writes in; another value is the input rules' 400 BAD_REQUEST naming `locale`. */
const LocaleInput = z
  .enum(LOCALES)
  .openapi({ description: "The language of the account's mail", example: "pt-BR" });

const UpdateMeBody = z
  .strictObject({ display_name: DisplayNameSchema.optional(), locale: LocaleInput.optional() })
  .refine((b) => b.display_name !== undefined || b.locale !== undefined, {
    message: "send display_name, locale or both",
  })
  .openapi("UpdateMeRequest");

const updateMeRoute = createRoute({
  method: "patch",
  path: "/api/v1/auth/me",
  tags: ["Account"],
  summary: "Set the caller's display name (the byline of the posts the person writes) and mail language",
  description:
    "Beyond the spec (issues 34, 36). Strict body: an unknown field is 400 BAD_REQUEST naming it. A person's posts on the dashboard routes of content are bylined with this name; a person without one cannot create a post there (422 DISPLAY_NAME_REQUIRED). `locale` (en, pt-BR) is the language of the account's mail; another value is 400 BAD_REQUEST.",
  ...bearerAuth,
  request: jsonBody(UpdateMeBody),
  responses: {
    200: jsonResponse("The caller, with the new display name", MeSchema),
    ...problemResponses({
      400: "BAD_REQUEST (display_name empty, longer than 120, with control characters; a locale other than en and pt-BR; neither field; an unknown field)",
      401: "UNAUTHENTICATED, TOKEN_EXPIRED",
    }),
  },
});

export function registerMeRoute(app: OpenAPIHono<AppEnv>) {
  app.openapi(getMeRoute, async (c) => {
    const me = await readMe(c.env.DB, c.get("auth").userId);
    if (!me) fail("UNAUTHENTICATED", "The account no longer exists.");
    return c.json(me, 200);
  });

  app.openapi(updateMeRoute, async (c) => {
    const { userId } = c.get("auth");
    const { display_name, locale } = c.req.valid("json");
    if (!(await updateAccount(c.env.DB, userId, { display_name, locale }, new Date().toISOString()))) {
      fail("UNAUTHENTICATED", "The account no longer exists.");
    }
    const me = await readMe(c.env.DB, userId);
    if (!me) fail("UNAUTHENTICATED", "The account no longer exists.");
    return c.json(me, 200);
  });
}
