/**
 * `/v1/mcp` as an OAuth protected resource (issue 37, docs/decisions/oauth-agents.md, "The resource"): the
 * RFC 9728 metadata, the 401 challenge with `resource_metadata`, an agent's access token verified against
 * identity's JWKS and acting as the person with token ∩ grant ∩ role scopes, the grant asked of identity
 * (reads cached at most 60 s, writes afresh), the 403 `insufficient_scope` step-up, and the token refused
 * everywhere else. Tokens are minted with the workers' test signing key; grants are rows of identity's
 * database, read by identity's real `agentAccess`.
 */

import { env } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/content/core/clock";
import type { SiteMover } from "../../src/content/groups/mover-do";
import { AGENT_ACCESS_TTL_MS } from "../../src/content/keys/agent";
import { QUOTAS } from "../../src/content/keys/api-key";
import { keyGate } from "../../src/content/keys/gate";
import { SCOPES } from "../../src/content/keys/scopes";
import { newId } from "../../src/lib/ids";
import {
  agentToken,
  MCP_RESOURCE,
  RESOURCE_METADATA,
  revokeGrant,
  type SeededGrant,
  seedGrant,
  TEST_ISSUER,
  type TokenOptions,
} from "../support/agent-tokens";
import { contentGroupDb, contentGroupOf, contentGroups } from "../support/content-groups";
import {
  BASE,
  call,
  content,
  countRows,
  createPost,
  makeSite,
  paragraph,
  tenant,
} from "../support/content-helpers";
import { seedPerson, setSiteRole } from "../support/identity-people";

const e = env as unknown as {
  JWT_SIGNING_KEYS: string;
  TEST_IDENTITY_DB: D1Database;
  KEY_GATE: ContentEnv["KEY_GATE"];
  SITE_MOVER: DurableObjectNamespace<SiteMover>;
};
const MCP_URL = `${BASE}/v1/mcp`;

afterEach(() => setClockForTests(null));

/** A site, a person with `role` on it, and the person's grant of a client with `scopes`. */
async function agentOn(role: string, scopes: readonly string[], displayName?: string) {
  const site = await makeSite();
  const person = await seedPerson({
    ...(displayName ? { displayName } : {}),
    site: [{ site_id: site.id, org_id: site.org_id, role }],
  });
  const grant = await seedGrant(e.TEST_IDENTITY_DB, {
    userId: person.userId,
    siteId: site.id,
    orgId: site.org_id,
    scopes: [...scopes],
  });
  return { site, person, grant };
}

function token(grant: SeededGrant, options: TokenOptions = {}): Promise<string> {
  return agentToken(e.JWT_SIGNING_KEYS, grant, options);
}

async function client(bearer: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    fetch: (url, init) => content.fetch(new Request(url, init)),
  });
  const agent = new Client({ name: "oauth-agent", version: "1.0.0" });
  await agent.connect(transport);
  return agent;
}

async function tool(agent: Client, name: string, args: Record<string, unknown> = {}) {
  return (await agent.callTool({ name, arguments: args })) as CallToolResult & {
    structuredContent?: Record<string, unknown>;
  };
}

async function toolNames(agent: Client): Promise<string[]> {
  return (await agent.listTools()).tools.map((t) => t.name).sort();
}

/** One raw JSON-RPC message to /v1/mcp, with this Authorization (or none). */
function rawMcp(authorization: string | null, message: unknown): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  };
  if (authorization !== null) headers.authorization = authorization;
  return content.fetch(new Request(MCP_URL, { method: "POST", headers, body: JSON.stringify(message) }));
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

function toolCall(name: string, args: Record<string, unknown>) {
  return { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } };
}

/** The 401 of /v1/mcp: problem+json, the platform's challenge plus the resource's metadata. */
async function expectChallenge(res: Response, error: "none" | "invalid_token", code = "UNAUTHENTICATED") {
  expect(res.status, await res.clone().text()).toBe(401);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(await res.json()).toMatchObject({ status: 401, code });
  const challenge = res.headers.get("www-authenticate") ?? "";
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain(`resource_metadata="${RESOURCE_METADATA}"`);
  if (error === "none") expect(challenge).not.toContain("error=");
  else expect(challenge).toContain('error="invalid_token"');
}

/** A refusal as a client sees it: status, challenge and body. */
async function refusal(res: Response): Promise<string> {
  return `${res.status} ${res.headers.get("www-authenticate")} ${await res.text()}`;
}

const EDITOR_SCOPES = ["posts:read", "posts:write", "media:read", "media:write", "site:read"];

describe("RFC 9728 metadata of /v1/mcp", () => {
  it("answers the resource, identity as its authorization server, the key scopes, header bearer only: public, CORS *, 5 minutes", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/v1/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const res = await call("GET", path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("cache-control")).toBe("public, max-age=300");
      expect(await res.json()).toEqual({
        resource: MCP_RESOURCE,
        authorization_servers: [TEST_ISSUER],
        scopes_supported: [...SCOPES],
        bearer_methods_supported: ["header"],
        resource_name: expect.any(String),
        resource_documentation: `${TEST_ISSUER}/docs/content`,
      });
    }
  });
});

describe("/v1/mcp's 401 names the resource metadata", () => {
  it("without credentials: the challenge without an error, with resource_metadata", async () => {
    await expectChallenge(await rawMcp(null, initialize), "none");
  });

  it("a revoked or unknown ck_ key, a malformed header, a JWT that is not identity's: invalid_token with resource_metadata", async () => {
    const { grant } = await agentOn("site_editor", EDITOR_SCOPES);
    const foreign = await token(grant, { key: "foreign" });
    for (const authorization of [
      "Bearer ck_unknownunknownunknown",
      "Basic abc",
      "Bearer not.a.jwt",
      `Bearer ${foreign}`,
    ]) {
      await expectChallenge(await rawMcp(authorization, initialize), "invalid_token");
    }
  });

  it("an expired agent token: TOKEN_EXPIRED (refresh), with resource_metadata", async () => {
    const { grant } = await agentOn("site_editor", EDITOR_SCOPES);
    const expired = await token(grant, { iat: Math.floor(Date.now() / 1000) - 600 });
    await expectChallenge(await rawMcp(`Bearer ${expired}`, initialize), "invalid_token", "TOKEN_EXPIRED");
  });

  it("a ck_ key keeps working, and a pk_ key is still 403", async () => {
    const t = await tenant();
    const agent = await client(t.ck);
    expect(await toolNames(agent)).toContain("create_post");
    const res = await rawMcp(`Bearer ${t.pk}`, initialize);
    expect(res.status).toBe(403);
  });
});

describe("an agent's access token acts as the person", () => {
  it("lists the tools its scopes reach, writes a post recorded and bylined as the person", async () => {
    const { site, person, grant } = await agentOn("site_editor", ["posts:read", "posts:write"], "Ada Agent");
    const agent = await client(await token(grant));
    const names = await toolNames(agent);
    expect(names).toContain("create_post");
    expect(names).toContain("get_post_source");
    expect(names).not.toContain("upload_media");
    expect(names).not.toContain("get_site_settings");

    const created = await tool(agent, "create_post", {
      post: { title: "By an agent", blocks_json: paragraph("hello"), status: "draft" },
    });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const post = created.structuredContent as { id: string; slug: string };
    const source = await tool(agent, "get_post_source", { reference: post.id });
    expect(source.structuredContent).toMatchObject({
      id: post.id,
      created_by: { kind: "person", id: person.userId, name: "Ada Agent" },
    });
    expect(await countRows("posts", site.id)).toBe(1);

    // The write spent the grant's own bucket (`agent:<grant id>`), not the person's dashboard one.
    const now = Date.now() - 60_000;
    const bucket = async (keyId: string) => {
      const taken = await keyGate(e, keyId).take([QUOTAS.write], now);
      return taken.buckets[0]?.remaining;
    };
    expect(await bucket(`agent:${grant.grantId}`)).toBe(QUOTAS.write.capacity - 2);
    expect(await bucket(`person:${person.userId}:${site.id}`)).toBe(QUOTAS.write.capacity - 1);
  });

  it("an agent's Idempotency-Key outlives a move of its site: the retry in the new group replays, one post", async () => {
    const { site, grant } = await agentOn("site_editor", ["posts:read", "posts:write"]);
    const agent = await client(await token(grant));
    const args = {
      post: { title: "Before the move", blocks_json: paragraph("moving"), status: "draft" },
      idempotency_key: "across-the-move",
    };
    const created = await tool(agent, "create_post", args);
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const post = created.structuredContent as { id: string };
    const from = await contentGroupOf(site.id);
    const to = [...contentGroups.keys()].find((g) => g !== from) ?? from;
    const mover = e.SITE_MOVER.get(e.SITE_MOVER.idFromName(site.id));
    await mover.start({ site_id: site.id, to, requested_by: null, manual: true, settle_ms: 0 });
    expect((await mover.runSteps(100_000))?.state).toBe("done");
    expect(await contentGroupOf(site.id)).toBe(to);
    // Past the key gate's pending reservation (60 s): only the D1 record can answer the retry now.
    const later = Date.now() + 2 * 60_000;
    setClockForTests(() => later);
    const retried = await tool(agent, "create_post", args);
    expect(retried.isError, JSON.stringify(retried.content)).toBeFalsy();
    expect((retried.structuredContent as { id: string }).id).toBe(post.id);
    expect(retried._meta).toMatchObject({ http_headers: { "idempotency-replayed": "true" } });
    expect(await countRows("posts", site.id)).toBe(1);
    // The record moved with the site, naming it; none is left in the old group.
    const recordsIn = (db: D1Database) =>
      db
        .prepare("SELECT site_id FROM idempotency_records WHERE key_id = ?")
        .bind(`agent:${grant.grantId}`)
        .all<{ site_id: string }>();
    expect((await recordsIn(contentGroupDb(to))).results).toEqual([{ site_id: site.id }]);
    expect((await recordsIn(contentGroupDb(from))).results).toEqual([]);
  });

  it("the roles' rules apply: a contributor's agent may not publish, whatever its token says", async () => {
    const { grant } = await agentOn("site_contributor", ["posts:read", "posts:write"]);
    const agent = await client(await token(grant));
    const published = await tool(agent, "create_post", {
      post: { title: "Published?", blocks_json: paragraph("x"), status: "published" },
    });
    expect(published.isError).toBe(true);
    expect(published.structuredContent).toMatchObject({ status: 403, code: "FORBIDDEN" });
  });

  it("scopes are the token's ∩ the grant's ∩ the role's: none of them widens the others", async () => {
    // The token claims more than the grant approved, the grant more than a contributor's role allows.
    const { grant } = await agentOn("site_contributor", ["posts:read", "posts:write", "media:write"]);
    const wide = await token(grant, { claims: { scope: [...SCOPES].join(" ") } });
    const names = await toolNames(await client(wide));
    expect(names).toContain("create_post");
    expect(names).not.toContain("upload_media"); // granted, but the role has no media:upload
    expect(names).not.toContain("list_media"); // the role's, but not granted
    expect(names).not.toContain("get_site_settings"); // claimed by the token only
  });
});

describe("the token's pins", () => {
  it("refuses another resource's audience, a staff token's type or kind, another issuer, a mismatch with the grant", async () => {
    const { grant } = await agentOn("site_editor", EDITOR_SCOPES);
    const other = await agentOn("site_editor", EDITOR_SCOPES);
    const variants: Record<string, TokenOptions> = {
      "aud /v1/other": { claims: { aud: `${TEST_ISSUER}/v1/other` } },
      "aud staff": { claims: { aud: "site-platform" } },
      "aud two": { claims: { aud: [MCP_RESOURCE, "site-platform"] } },
      "typ JWT": { header: { typ: "JWT" } },
      "no typ": { header: { typ: undefined } },
      "kind staff": { claims: { kind: "staff" } },
      "no kind": { claims: { kind: undefined } },
      "iss other": { claims: { iss: "https://evil.example" } },
      "sub other": { claims: { sub: other.person.userId } },
      "client other": { claims: { client_id: other.grant.clientId } },
      "site other": { claims: { site_id: other.site.id } },
      "gid other": { claims: { gid: other.grant.grantId } },
      "gid unknown": { claims: { gid: "01JAAAAAAAAAAAAAAAAAAAAAAA" } },
      "no gid": { claims: { gid: undefined } },
      "no jti": { claims: { jti: undefined } },
      "foreign key": { key: "foreign" },
    };
    const answers = new Set<string>();
    for (const [name, options] of Object.entries(variants)) {
      const res = await rawMcp(`Bearer ${await token(grant, options)}`, initialize);
      expect(res.status, name).toBe(401);
      expect(res.headers.get("www-authenticate"), name).toContain('error="invalid_token"');
      answers.add(await refusal(res));
    }
    // One answer for all of them: nothing tells a forged signature from an unknown grant or another site.
    expect([...answers]).toEqual([await refusal(await rawMcp("Bearer not.a.jwt", initialize))]);
    // The configured `next` key is in identity's JWKS: a token it signs verifies (rotation).
    const rotated = await rawMcp(`Bearer ${await token(grant, { key: "next" })}`, initialize);
    expect(rotated.status).toBe(200);
  });

  it("a token of site A reads nothing of site B, and never names B", async () => {
    const a = await agentOn("site_editor", EDITOR_SCOPES);
    const b = await tenant();
    const post = await createPost(b.ck, { title: "B's draft", status: "draft" });
    const agent = await client(await token(a.grant));
    const read = await tool(agent, "get_post_source", { reference: post.id });
    expect(read.structuredContent).toMatchObject({ status: 404, code: "NOT_FOUND" });
    // The person is no member of B: a token naming B (signed, but not the grant's site) is refused.
    const forB = await token(a.grant, { claims: { site_id: b.site.id } });
    expect((await rawMcp(`Bearer ${forB}`, initialize)).status).toBe(401);
  });

  it("a grant of a site content never met (no directory row, so no group): the same 401 as a revoked grant", async () => {
    const revoked = await agentOn("site_editor", EDITOR_SCOPES);
    await revokeGrant(e.TEST_IDENTITY_DB, revoked.grant.grantId);
    const asRevoked = await refusal(await rawMcp(`Bearer ${await token(revoked.grant)}`, initialize));
    const [siteId, orgId] = [newId(), newId()];
    const person = await seedPerson({ site: [{ site_id: siteId, org_id: orgId, role: "site_editor" }] });
    const grant = await seedGrant(e.TEST_IDENTITY_DB, {
      userId: person.userId,
      siteId,
      orgId,
      scopes: [...EDITOR_SCOPES],
    });
    const unknown = await rawMcp(`Bearer ${await token(grant)}`, initialize);
    expect(await refusal(unknown.clone())).toBe(asRevoked);
    await expectChallenge(unknown, "invalid_token");
  });

  it("a site archived, or the person's membership ended: the same 401 as a revoked grant", async () => {
    const revoked = await agentOn("site_editor", EDITOR_SCOPES);
    await revokeGrant(e.TEST_IDENTITY_DB, revoked.grant.grantId);
    const asRevoked = await refusal(await rawMcp(`Bearer ${await token(revoked.grant)}`, initialize));

    const archived = await agentOn("site_editor", EDITOR_SCOPES);
    await content.syncSite({ ...archived.site, status: "archived", updated_at: new Date().toISOString() });
    const archivedAnswer = await rawMcp(`Bearer ${await token(archived.grant)}`, initialize);
    expect(await refusal(archivedAnswer.clone())).toBe(asRevoked);
    await expectChallenge(archivedAnswer, "invalid_token");

    const removed = await agentOn("site_editor", EDITOR_SCOPES);
    await setSiteRole(removed.person, removed.site.id, null);
    const removedAnswer = await rawMcp(`Bearer ${await token(removed.grant)}`, initialize);
    expect(await refusal(removedAnswer.clone())).toBe(asRevoked);
    await expectChallenge(removedAnswer, "invalid_token");
  });
});

describe("revocation and demotion reach the agent", () => {
  it("a revoked grant stops a write at once: identity is asked afresh before any tool runs", async () => {
    const { site, grant } = await agentOn("site_editor", EDITOR_SCOPES);
    const bearer = await token(grant);
    const start = Date.now();
    setClockForTests(() => start);
    const agent = await client(bearer);
    expect(await toolNames(agent)).toContain("create_post");

    await revokeGrant(e.TEST_IDENTITY_DB, grant.grantId);
    // A write asks identity afresh: 401 before any tool runs, nothing written.
    const write = await rawMcp(
      `Bearer ${bearer}`,
      toolCall("create_post", { post: { title: "After revocation", blocks_json: paragraph("x") } }),
    );
    await expectChallenge(write, "invalid_token");
    expect(await countRows("posts", site.id)).toBe(0);
  });

  it("a read uses the isolate's answer for under 60 s, then asks again and is refused", async () => {
    const { grant } = await agentOn("site_editor", EDITOR_SCOPES);
    const bearer = await token(grant);
    const start = Date.now();
    setClockForTests(() => start);
    expect((await rawMcp(`Bearer ${bearer}`, initialize)).status).toBe(200);
    await revokeGrant(e.TEST_IDENTITY_DB, grant.grantId);
    setClockForTests(() => start + AGENT_ACCESS_TTL_MS - 1000);
    expect((await rawMcp(`Bearer ${bearer}`, initialize)).status).toBe(200);
    setClockForTests(() => start + AGENT_ACCESS_TTL_MS);
    await expectChallenge(await rawMcp(`Bearer ${bearer}`, initialize), "invalid_token");
    expect(AGENT_ACCESS_TTL_MS).toBeLessThanOrEqual(60_000);
  });

  it("a demoted person's agent loses what the role lost: a write at once (403 insufficient_scope), the tool list within 60 s", async () => {
    const { person, site, grant } = await agentOn("site_editor", EDITOR_SCOPES);
    const bearer = await token(grant);
    const start = Date.now();
    setClockForTests(() => start);
    expect(await toolNames(await client(bearer))).toContain("upload_media");

    await setSiteRole(person, site.id, "site_contributor");
    const upload = await rawMcp(`Bearer ${bearer}`, toolCall("upload_media", { data: "AAAA" }));
    expect(upload.status).toBe(403);
    expect(upload.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(upload.headers.get("www-authenticate")).toContain('scope="media:write"');

    setClockForTests(() => start + AGENT_ACCESS_TTL_MS);
    const names = await toolNames(await client(bearer));
    expect(names).not.toContain("upload_media");
    expect(names).toContain("create_post");
  });
});

describe("insufficient scope: the MCP authorization spec's step-up", () => {
  it("a tool the token's scopes do not reach is HTTP 403 with the insufficient_scope challenge, before anything runs", async () => {
    const { site, grant } = await agentOn("site_editor", ["posts:read"]);
    const bearer = await token(grant);
    const res = await rawMcp(
      `Bearer ${bearer}`,
      toolCall("create_post", { post: { title: "Not allowed", blocks_json: paragraph("x") } }),
    );
    expect(res.status).toBe(403);
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="posts:write"');
    expect(challenge).toContain(`resource_metadata="${RESOURCE_METADATA}"`);
    expect(await res.json()).toMatchObject({
      status: 403,
      code: "INSUFFICIENT_SCOPE",
      details: { required_scopes: ["posts:write"], missing_scopes: ["posts:write"], tools: ["create_post"] },
    });
    expect(await countRows("posts", site.id)).toBe(0);

    // In a batch, one such call refuses the whole message: nothing of it ran.
    const batch = await rawMcp(`Bearer ${bearer}`, [
      toolCall("list_posts", {}),
      { ...toolCall("create_post", { post: { title: "x", blocks_json: paragraph("x") } }), id: 3 },
    ]);
    expect(batch.status).toBe(403);
  });

  it("a ck_ key lacking the scope still gets the tool error it always got (a key cannot step up)", async () => {
    const t = await tenant();
    const res = await rawMcp(`Bearer ${t.ck}`, toolCall("upload_media", { data: "AAAA" }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result?: { isError?: boolean } };
    expect(body.result?.isError).toBe(true);
  });
});

describe("audiences: an agent's token is refused by every other route", () => {
  it("/v1/posts, /v1/site and /v1/posts/{ref} answer 401, as for any unknown credential", async () => {
    const { grant } = await agentOn("site_editor", EDITOR_SCOPES);
    const bearer = await token(grant);
    // The same token works at /v1/mcp...
    expect((await rawMcp(`Bearer ${bearer}`, initialize)).status).toBe(200);
    // ...and nowhere else, though its tool calls run as these very operations in-process.
    for (const [method, path] of [
      ["GET", "/v1/posts"],
      ["GET", "/v1/site"],
      ["GET", "/v1/posts/anything/source"],
      ["POST", "/v1/posts"],
    ] as const) {
      const res = await content.fetch(
        new Request(`${BASE}${path}`, {
          method,
          headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
          ...(method === "POST" ? { body: JSON.stringify({ title: "x" }) } : {}),
        }),
      );
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(await res.json()).toMatchObject({ code: "UNAUTHENTICATED" });
    }
  });
});
