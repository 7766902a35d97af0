/**
 * The operator console through the gateway: `npm run operator -- grant` stores a capability in identity
 * (platform_operators), the edge turns it into `X-Platform-Operator`, and the sites console reads it.
 * Forged operator headers from a client never reach sites.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createOrg, createSite, verifiedUser } from "../support/platform";

const identityDb = (env as unknown as { TEST_IDENTITY_DB: D1Database }).TEST_IDENTITY_DB;

/** What `npm run operator -- grant EMAIL CAPABILITY` writes. */
async function grant(userId: string, capability: "operator_read" | "operator_admin") {
  await identityDb
    .prepare("INSERT INTO platform_operators (user_id, capability, granted_at) VALUES (?, ?, ?)")
    .bind(userId, capability, new Date().toISOString())
    .run();
}

describe("operator console through the edge", () => {
  it("a granted operator_admin lists, inspects and archives a customer's site; the customer then loses it", async () => {
    const customer = await verifiedUser();
    const org = await createOrg(customer.access_token);
    const site = await createSite(customer.access_token, org.id);
    const operator = await verifiedUser();
    await grant(operator.user.id, "operator_admin");

    const list = await call<{ items: { id: string }[] }>("GET", `/api/v1/platform/sites?org_id=${org.id}`, {
      token: operator.access_token,
    });
    expect(list.status).toBe(200);
    expect(list.body.items.map((s) => s.id)).toEqual([site.id]);
    const detail = await call<{ status: string }>("GET", `/api/v1/platform/sites/${site.id}`, {
      token: operator.access_token,
    });
    expect(detail.status).toBe(200);
    const archived = await call<{ status: string }>("POST", `/api/v1/platform/sites/${site.id}/archive`, {
      token: operator.access_token,
      body: { reason: "abuse report" },
    });
    expect(archived.status).toBe(200);
    expect(archived.body.status).toBe("archived");
    const gone = await call("GET", `/api/v1/sites/${site.id}`, { token: customer.access_token });
    expect(gone.status).toBe(404);
  });

  it("operator_read reads but does not write; a user without a grant, or forging the header, gets 403", async () => {
    const customer = await verifiedUser();
    const org = await createOrg(customer.access_token);
    const site = await createSite(customer.access_token, org.id);
    const reader = await verifiedUser();
    await grant(reader.user.id, "operator_read");
    expect(
      (await call("GET", `/api/v1/platform/sites/${site.id}`, { token: reader.access_token })).status,
    ).toBe(200);
    const write = await call<{ code: string }>("POST", `/api/v1/platform/sites/${site.id}/deactivate`, {
      token: reader.access_token,
    });
    expect(write.status).toBe(403);
    const themes = await call<{ code: string }>("POST", "/api/v1/platform/themes", {
      token: reader.access_token,
      body: { name: "X", slug: "x" },
    });
    expect(themes.status).toBe(403);
    expect(themes.body.code).toBe("PLATFORM_FORBIDDEN");

    const forged = await call<{ code: string }>("GET", "/api/v1/platform/sites", {
      token: customer.access_token,
      headers: { "x-platform-operator": "operator_admin" },
    });
    expect(forged.status).toBe(403);
    const anonymous = await call("GET", "/api/v1/platform/sites", {
      headers: { "x-platform-operator": "operator_admin" },
    });
    expect([401, 403]).toContain(anonymous.status);
    expect((await call("GET", `/api/v1/sites/${site.id}`, { token: customer.access_token })).status).toBe(
      200,
    );
  });
});
