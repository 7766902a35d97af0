/** The QR code of a pending TOTP enrollment, rendered on the server (beyond the spec). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { renderSVG } from "uqr";
import { problemResponses } from "../../lib/app";
import { bearerAuth } from "../core/auth";
import type { AppEnv } from "../core/context";
import { openSecret } from "../core/crypto";
import { jsonResponse } from "../core/schemas";
import { fail } from "../errors";
import { primaryEmail } from "../signup/accounts-store";
import { findTotp } from "./store";
import { otpauthUri } from "./totp";

const getTotpQrRoute = createRoute({
  method: "get",
  path: "/api/v1/auth/mfa/totp/qr",
  tags: ["Second factors"],
  summary: "The pending TOTP enrollment's otpauth URI as a QR code (SVG markup, no text of the account)",
  description:
    "Beyond the spec. Only while an enrollment started with POST /auth/mfa/totp is pending; the SVG holds only the code's modules.",
  ...bearerAuth,
  responses: {
    200: jsonResponse("QR code", z.object({ svg: z.string() })),
    ...problemResponses({ 401: "UNAUTHENTICATED, TOKEN_EXPIRED", 404: "NOT_FOUND (no pending enrollment)" }),
  },
});

export function registerTotpQrRoute(app: OpenAPIHono<AppEnv>) {
  app.openapi(getTotpQrRoute, async (c) => {
    const { userId } = c.get("auth");
    const row = await findTotp(c.env.DB, userId);
    if (!row || row.confirmed_at) fail("NOT_FOUND", "No TOTP enrollment is pending.");
    const secret = await openSecret(c.env.OTP_PEPPER, row.secret_enc);
    const account = (await primaryEmail(c.env.DB, userId)) ?? userId;
    c.header("Cache-Control", "no-store");
    return c.json({ svg: renderSVG(otpauthUri(secret, account, "Site Platform"), { border: 2 }) }, 200);
  });
}
