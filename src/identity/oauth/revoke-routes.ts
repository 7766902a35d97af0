/**
 * `POST /api/v1/auth/oauth/revoke` (RFC 7009; issue 37): the client, authenticated as at the token
 * endpoint, ends the grant of a refresh or access token it holds. 200 with an empty body whether the token
 * was known or not (§2.2); RFC 6749 §5.2 JSON errors for a bad request or client.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../core/context";
import { revokeToken } from "./grants";
import { authenticateClient, OAuthError } from "./token";
import {
  enforceOAuthIpLimit,
  limitOAuthBody,
  OAUTH_ANSWER_HEADERS,
  OAUTH_ERROR_RESPONSES,
  oauthFailure,
  presentedClient,
  readOAuthForm,
} from "./token-routes";

export const REVOKE_PATH = "/api/v1/auth/oauth/revoke";

async function revokeAnswer(c: Context<AppEnv>) {
  const services = c.get("services");
  await enforceOAuthIpLimit(c.env, services.request.ip);
  const form = await readOAuthForm(c);
  const client = await authenticateClient(c.env, services, presentedClient(c, form));
  const token = form.get("token");
  if (token === undefined) throw new OAuthError("invalid_request", "token is required.");
  // token_type_hint is only a hint (§2.1): both kinds are looked up whatever it says.
  await revokeToken(c.env, services, client.id, token);
}

export const revokeRoute = createRoute({
  method: "post",
  path: REVOKE_PATH,
  tags: ["OAuth"],
  summary: "Token revocation (RFC 7009): ends the grant of a refresh or access token of the client",
  request: {
    body: {
      required: true,
      content: {
        "application/x-www-form-urlencoded": {
          schema: z.object({
            token: z.string(),
            token_type_hint: z.enum(["refresh_token", "access_token"]).optional(),
            client_id: z.string().optional(),
            client_secret: z.string().optional(),
          }),
        },
      },
    },
  },
  responses: {
    200: { description: "Revoked, or the token was unknown (RFC 7009 §2.2)" },
    ...OAUTH_ERROR_RESPONSES,
  },
});

export function registerRevokeRoutes(app: OpenAPIHono<AppEnv>) {
  // Declared in the registry and served by a plain handler: the form and the errors are OAuth's.
  app.openAPIRegistry.registerPath(revokeRoute);
  app.post(REVOKE_PATH, limitOAuthBody, async (c) => {
    try {
      await revokeAnswer(c);
      return new Response(null, { status: 200, headers: OAUTH_ANSWER_HEADERS });
    } catch (err) {
      return oauthFailure(err);
    }
  });
}
