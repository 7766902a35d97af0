import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { problemResponses } from "../../lib/app";
import { atResource, insufficientScopeChallenge } from "../../lib/bearer";
import { MCP_PATH, MCP_UPLOAD_MESSAGE_MAX_BYTES } from "../../lib/body-caps";
import { type IdentityRpc, rpc } from "../../lib/rpc";
import type { AppEnv } from "../core/bindings";
import { carryRouting } from "../core/routing";
import { fail } from "../errors";
import { type AgentDirectory, admitAgent, asAgentCall, resolveAgent } from "../keys/agent";
import { resourceMetadataUrl } from "../keys/agent-token";
import { authenticateKey, type KeyRequirement } from "../keys/api-key";
import type { KeyContext } from "../keys/key-context";
import { clientIp, keyRequest, security } from "../keys/middleware";
import { type OpenApiDocument, toolCatalogue } from "./catalogue";
import type { ToolContext } from "./dispatch";
import { registerResourceMetadataRoutes } from "./resource-metadata";
import { mcpMethodNotAllowed } from "./server";
import { TOOL_SPECS, type ToolDefinition, toolVisible } from "./tools";
import { handleMcpRequest, tooLargeDetail } from "./transport";

/**
 * Any valid ck_ key of a live site, or an MCP agent's OAuth access token (keys/agent.ts); a pk_ key is
 * refused (403: it lives in browsers and is bound to their origins). Each MCP request costs one read; each
 * tool call then costs what its operation costs.
 */
const MCP_KEY: KeyRequirement = { kinds: "secret", scopes: [], quota: "read" };

/** MCP requests (their Hono contexts) whose caller is an agent: its token, for a write's fresh look. */
const agentTokens = new WeakMap<Context<AppEnv>, string>();

function agentDirectory(env: AppEnv["Bindings"]): AgentDirectory {
  return { agentAccess: (input) => rpc<IdentityRpc>(env.IDENTITY).agentAccess(input) };
}

/** The Bearer credential of the request, when it is not an API key (ck_, pk_): an agent's token. */
function agentToken(authorization: string | undefined): string | null {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  if (token === undefined || token.startsWith("ck_") || token.startsWith("pk_")) return null;
  return token;
}

/**
 * `/v1/mcp`'s authentication: a ck_ key as every key route has it, or an agent's access token. Every 401
 * carries the RFC 9728 `resource_metadata` of this resource in its challenge, so an OAuth client finds
 * the authorization server from it (the MCP authorization spec's discovery).
 */
function requireMcpCaller(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = agentToken(c.req.header("authorization"));
    let key: KeyContext;
    try {
      if (token === null) key = await authenticateKey(c.env, keyRequest(c), MCP_KEY);
      else {
        const request = keyRequest(c);
        const agent = await resolveAgent(c.env, request, token, false, agentDirectory(c.env));
        // resolveAgent routed the request to the grant's site's group: `c.env` is that group's now.
        key = await admitAgent(c.env, request, MCP_KEY, agent);
        agentTokens.set(c, token);
      }
    } catch (error) {
      throw atResource(error, resourceMetadataUrl(c.env.TOKEN_ISSUER));
    }
    c.set("auth", key);
    await next();
  };
}

/** The tools a JSON-RPC message (or batch) calls, as the catalogue defines them (unknown names left out). */
function calledTools(body: unknown, catalogue: readonly ToolDefinition[]): ToolDefinition[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) => {
    if (message === null || typeof message !== "object") return [];
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } | null };
    if (method !== "tools/call") return [];
    const definition = catalogue.find((d) => d.spec.name === params?.name);
    return definition ? [definition] : [];
  });
}

/** A tool whose operation writes, reads leads or exports: its call looks at the grant afresh. */
function needsFreshGrant(definition: ToolDefinition): boolean {
  return (
    definition.spec.method !== "GET" ||
    definition.spec.deletesAfterReading !== undefined ||
    definition.scopeSets.some((set) => set.includes("leads:read") || set.includes("export"))
  );
}

function parsedBody(bytes: ArrayBuffer): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/**
 * An agent's request, before any tool runs: a call of a tool that writes asks identity afresh about the
 * grant (a revoked one is 401 at once, a demotion counts at once); a call of a tool the agent's effective
 * scopes do not reach is refused as the MCP authorization spec says (HTTP 403 with RFC 6750's
 * `insufficient_scope` challenge naming the scopes the tool needs, and `resource_metadata`), the whole
 * message unanswered, so the client can ask the person for them and repeat it. A ck_ key cannot step up:
 * its refusals stay tool errors, as before.
 */
async function agentGate(
  c: Context<AppEnv>,
  catalogue: readonly ToolDefinition[],
  token: string,
): Promise<KeyContext> {
  const tools = calledTools(parsedBody(await c.req.arrayBuffer()), catalogue);
  const metadata = resourceMetadataUrl(c.env.TOKEN_ISSUER);
  let key = c.get("auth");
  if (tools.some(needsFreshGrant)) {
    try {
      key = await resolveAgent(c.env, keyRequest(c), token, true, agentDirectory(c.env));
    } catch (error) {
      throw atResource(error, metadata);
    }
    c.set("auth", key);
  }
  const lacking = tools.filter((d) => !toolVisible(d, key.scopes));
  if (lacking.length > 0) {
    const required = [...new Set(lacking.flatMap((d) => d.scopeSets[0] ?? []))];
    fail("INSUFFICIENT_SCOPE", {
      detail: `This tool call requires the scope(s): ${required.join(", ")}; ask the person to approve them.`,
      details: {
        required_scopes: required,
        missing_scopes: required.filter((s) => !key.scopes.has(s)),
        tools: lacking.map((d) => d.spec.name),
      },
      headers: { "www-authenticate": insufficientScopeChallenge(required, metadata) },
    });
  }
  return key;
}

type App = OpenAPIHono<AppEnv>;

const catalogues = new WeakMap<App, ToolDefinition[]>();

/** The tools, read once per isolate from the app's OpenAPI document. */
function catalogueOf(app: App): ToolDefinition[] {
  let catalogue = catalogues.get(app);
  if (!catalogue) {
    const document = app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: { title: "content", version: "mcp" },
    });
    catalogue = toolCatalogue(document as unknown as OpenApiDocument, TOOL_SPECS);
    catalogues.set(app, catalogue);
  }
  return catalogue;
}

/**
 * A tool call's requests: the MCP request's key (an agent's KeyContext handed over in this isolate, its
 * token never sent on), client IP and request id, through this app.
 */
function toolContext(c: Context<AppEnv>, app: App, agent: KeyContext | null): ToolContext {
  const headers: Record<string, string> = { "cf-connecting-ip": clientIp(c) };
  if (!agent) headers.authorization = c.req.header("authorization") ?? "";
  const requestId = c.get("log").requestId;
  if (requestId) headers["x-request-id"] = requestId;
  return {
    // Each tool call runs in this request's group and D1 session (core/routing.ts).
    fetch: async (request) =>
      app.fetch(carryRouting(c, agent ? asAgentCall(request, agent) : request), c.env, c.executionCtx),
    origin: new URL(c.req.url).origin,
    headers,
    key: c.get("auth"),
    images: c.get("services").images,
    log: c.get("log"),
  };
}

/** The stream is cut at the upload call's cap; a message of another kind is then held to its 2 MiB. */
const limitBody = bodyLimit({
  maxSize: MCP_UPLOAD_MESSAGE_MAX_BYTES,
  onError: () => fail("PAYLOAD_TOO_LARGE", tooLargeDetail),
});

async function answerMcp(c: Context<AppEnv>, app: App): Promise<Response> {
  const catalogue = catalogueOf(app);
  const token = agentTokens.get(c);
  const agent = token === undefined ? null : await agentGate(c, catalogue, token);
  const bytes = await c.req.arrayBuffer();
  // Awaited here: a refusal it throws before its first await (the body caps) is handled at once.
  return await handleMcpRequest(c.req.raw, bytes, catalogue, toolContext(c, app, agent));
}

export function registerMcpRoute(app: App) {
  registerResourceMetadataRoutes(app);
  app.openAPIRegistry.registerPath({
    method: "post",
    path: MCP_PATH,
    tags: ["MCP"],
    summary: "MCP server for AI agents (Streamable HTTP, stateless)",
    description: `Model Context Protocol over Streamable HTTP (JSON answers, no session; GET and DELETE are 405), both revisions on this one path: 2026-07-28 (no initialize; Mcp-Method and Mcp-Name headers must agree with the body, else 400 with JSON-RPC error -32020; an unsupported MCP-Protocol-Version is 400 -32022 listing the supported ones; server/discover; no batches) and 2025-11-25 (initialize, stateless). Authorization: Bearer ck_… (any scope; a pk_ key is 403), or an AI agent's OAuth access token from identity (the authorization server named by the RFC 9728 metadata at /.well-known/oauth-protected-resource/v1/mcp), which acts as the person who approved it on its one site with the approved scopes that person's role still allows; a missing, invalid, expired or revoked credential is 401 problem+json before any MCP processing, its WWW-Authenticate naming that metadata (resource_metadata). An agent's tool call whose operation needs a scope it lacks is 403 INSUFFICIENT_SCOPE with WWW-Authenticate error="insufficient_scope" and the scopes needed (the MCP authorization spec's step-up), before any tool runs. Each request costs one read of the key's (the grant's) quota. Tools (listed only when the key's scopes reach their operation; each runs as its operation with the same key, so validation, scopes, quotas, idempotency and error codes are the API's; a refusal is a tool result with isError and the problem as structuredContent): ${TOOL_SPECS.map((t) => `${t.name} (${t.method} ${t.path})`).join(", ")}. Input schemas are this document's parameters and request bodies of those operations.`,
    security: security(MCP_KEY.kinds, MCP_KEY.scopes),
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            // Declared open (issue 33): the message's members are JSON-RPC 2.0's and MCP's (`_meta`, and
            // whatever later protocol revisions add), read by the MCP SDK, not by this document; a tool's
            // arguments are checked by the tool's input schema and then by its operation (strict bodies).
            schema: {
              type: "object",
              additionalProperties: true,
              description:
                "A JSON-RPC 2.0 message of the Model Context Protocol (or a batch of them). Open: its members are the protocol's, read by the MCP server; a tool's arguments are checked by the tool's input schema and its operation, which refuse an unknown field.",
            },
          },
        },
      },
    },
    responses: {
      200: {
        description: "The JSON-RPC answer",
        content: { "application/json": { schema: { type: "object" } } },
      },
      202: { description: "Accepted (a notification or a response: nothing to answer)" },
      ...problemResponses({
        401: "Key or access token missing, invalid, expired or revoked (WWW-Authenticate with resource_metadata)",
        403: 'A pk_ key; an agent\'s tool call lacking a scope (WWW-Authenticate error="insufficient_scope")',
        413: "Message above 2 MiB (12 MiB for one upload_media call)",
        429: "Quota",
      }),
    },
  });
  app.post(MCP_PATH, requireMcpCaller(), limitBody, (c) => answerMcp(c, app));
  app.on(["GET", "DELETE"], MCP_PATH, requireMcpCaller(), () => mcpMethodNotAllowed());
}
