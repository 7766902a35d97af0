/**
 * An MCP agent connected the way its client does it, through the gateway's public API (issue 37,
 * docs/decisions/oauth-agents.md), for the `identity.oauth_grant` rows of the credential matrix: the client
 * registers (RFC 7591), the signed-in person opens the consent and approves it for one site and some
 * scopes (the page's API), the client redeems the code with its PKCE verifier, and then uses the grant:
 * `POST /v1/mcp` tools/list, a `create_post` tools/call with its access token, and the refresh.
 */
import { exports } from "cloudflare:workers";
import { testIp } from "../../support/client-ip";
import { BASE, call } from "../../support/platform";
import { type Mail, newMail, withStepUp } from "./identity-steps";

const REDIRECT_URI = "http://127.0.0.1:33418/callback";
const RESOURCE = `${BASE}/v1/mcp`;

/** What the agent holds once connected, and the notice its person was mailed. */
export interface Agent {
  clientId: string;
  grantId: string;
  siteId: string;
  access: string;
  refresh: string;
  /** The person's `oauth_grant_notice`, with the one-click undo link. */
  notice: Mail;
}

function fail(what: string, res: { status: number; body: unknown }): never {
  throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replaceAll("=", "");

async function pkce() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return { verifier, challenge: base64url(digest) };
}

/** `POST /api/v1/auth/oauth/token` as the client posts it (a form); the JSON answer and its status. */
async function tokenEndpoint(form: Record<string, string>) {
  const res = await exports.default.fetch(`${BASE}/api/v1/auth/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": testIp() },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  let body: Record<string, string> = {};
  try {
    body = JSON.parse(text) as Record<string, string>;
  } catch {
    body = { raw: text };
  }
  return { status: res.status, body };
}

/**
 * Connects an agent on `siteId` for `who` (signed in: `access_token`, `email` for the step-up): registers a
 * public client, opens and approves the consent with `scopes`, redeems the code.
 */
export async function connectAgent(
  who: { access_token: string; email: string },
  siteId: string,
  scopes: readonly string[] = ["posts:read", "posts:write"],
): Promise<Agent> {
  const registered = await call<{ client_id: string }>("POST", "/api/v1/auth/oauth/register", {
    body: {
      client_name: "Matrix agent",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    },
  });
  if (registered.status !== 201) fail("register", registered);
  const clientId = registered.body.client_id;
  const { verifier, challenge } = await pkce();
  const state = crypto.randomUUID();
  const opened = await call<{ consent_id: string; csrf_token: string }>(
    "POST",
    "/api/v1/auth/oauth/consents",
    {
      token: who.access_token,
      body: {
        response_type: "code",
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state,
        scope: scopes.join(" "),
        resource: RESOURCE,
      },
    },
  );
  if (opened.status !== 200 || !opened.body.consent_id) fail("consent", opened);
  const approved = await withStepUp<{ redirect: string }>(
    who,
    "POST",
    `/api/v1/auth/oauth/consents/${opened.body.consent_id}/approve`,
    { csrf_token: opened.body.csrf_token, site_id: siteId, scopes },
  );
  if (approved.status !== 200) fail("approve", approved);
  const back = new URL(approved.body.redirect);
  if (back.searchParams.get("state") !== state) fail("state", { status: 200, body: approved.body });
  const code = back.searchParams.get("code");
  if (!code) fail("code", { status: 200, body: approved.body });
  const redeemed = await tokenEndpoint({
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
    resource: RESOURCE,
  });
  if (redeemed.status !== 200) fail("redeem", redeemed);
  const access = redeemed.body.access_token!;
  const claims = JSON.parse(atob(access.split(".")[1]!.replaceAll("-", "+").replaceAll("_", "/"))) as {
    gid: string;
  };
  const notice = await newMail(who.email, "oauth_grant_notice");
  return { clientId, grantId: claims.gid, siteId, access, refresh: redeemed.body.refresh_token!, notice };
}

/** One JSON-RPC message to `/v1/mcp` with the agent's access token: the HTTP status. */
async function mcp(access: string, message: unknown): Promise<number> {
  const res = await exports.default.fetch(`${BASE}/v1/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${access}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      "cf-connecting-ip": testIp(),
    },
    body: JSON.stringify(message),
  });
  const text = await res.text();
  if (res.status !== 200) return res.status;
  // JSON, or one server-sent event carrying it.
  const json = text.trimStart().startsWith("{")
    ? text
    : (text
        .split("\n")
        .find((line) => line.startsWith("data:"))
        ?.slice(5) ?? "{}");
  const reply = JSON.parse(json) as { error?: unknown; result?: { isError?: boolean } };
  // A refusal of the token is HTTP (401, 403); an error inside a 200 is the row's own mistake.
  if (reply.error !== undefined || reply.result?.isError === true) throw new Error(`/v1/mcp: ${text}`);
  return res.status;
}

/** The agent refreshes (RFC 6749 §6): on 200 it holds the new pair (the old refresh token is spent). */
export async function refreshAgent(agent: Agent): Promise<number> {
  const res = await tokenEndpoint({
    grant_type: "refresh_token",
    refresh_token: agent.refresh,
    client_id: agent.clientId,
    resource: RESOURCE,
  });
  if (res.status === 200) {
    agent.access = res.body.access_token!;
    agent.refresh = res.body.refresh_token!;
  }
  return res.status;
}

/**
 * The agent at work: tools/list, then a `create_post` tools/call (a write: content asks identity afresh),
 * with the access token it holds. 200 while both work; otherwise the first refusal's status (401 once the
 * grant is ended). A refused token whose refresh still mints a new pair is a failure of the ending itself:
 * thrown, so the row says so (unless `refreshMustFail` is false: an ending identity is not told of).
 */
export async function agentWorks(agent: Agent, options: { refreshMustFail?: boolean } = {}): Promise<number> {
  const list = await mcp(agent.access, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  const write = await mcp(agent.access, {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: {
      name: "create_post",
      arguments: {
        post: {
          title: `Agent ${crypto.randomUUID()}`,
          blocks_json: { blocks: [{ id: "p1", type: "paragraph", data: { text: "by an agent" } }] },
          status: "draft",
        },
      },
    },
  });
  if (list === 200 && write === 200) return 200;
  const refused = write !== 200 ? write : list;
  if (options.refreshMustFail !== false && (await refreshAgent(agent)) === 200) {
    throw new Error(`the agent's token is refused (${refused}) but its refresh token still mints tokens`);
  }
  return refused;
}
