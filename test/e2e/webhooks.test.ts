/**
 * Webhooks across the edge: the site's owner registers one with a real session, an API key publishes a
 * post, and the receiver gets a delivery it verifies with the secret shown at registration. Another user,
 * or forged edge headers, never reach the site's webhooks.
 */
import { describe, expect, it } from "vitest";
import { call, createOrg, createSite, verifiedUser } from "../support/platform";
import { eventually, inbox, payloads, received, trustSecrets } from "../support/webhook-helpers";

describe("webhooks through the gateway", () => {
  it("the owner registers a webhook and receives post.published, signed with the secret shown once", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    const site = await createSite(owner.access_token, org.id);
    const { box, url } = inbox();
    const hook = await call<{ id: string; secret: string }>("POST", `/api/v1/sites/${site.id}/webhooks`, {
      token: owner.access_token,
      body: { url, events: ["post.published"] },
    });
    expect(hook.status).toBe(201);
    await trustSecrets(box, [hook.body.secret]);
    const key = await call<{ key: string }>("POST", `/api/v1/sites/${site.id}/api-keys`, {
      token: owner.access_token,
      body: { name: "autoposter", kind: "secret", scopes: ["posts:write"] },
    });
    const post = await call<{ id: string }>("POST", "/v1/posts", {
      token: key.body.key,
      body: { title: "Across the edge", status: "published" },
    });
    expect(post.status).toBe(201);
    const got = await eventually(
      () => received(box),
      (ds) => ds.length >= 1,
    );
    expect(got[0]!.verified).toBe(true);
    expect(payloads(got)[0]).toMatchObject({ type: "post.published", data: { post_id: post.body.id } });
  });

  it("no session is 401 at the edge; another user's session or forged headers get the missing site's 404", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token);
    const site = await createSite(owner.access_token, org.id);
    const path = `/api/v1/sites/${site.id}/webhooks`;
    const forged = {
      "x-user-id": owner.user.id,
      "x-session-kind": "staff",
      "x-org-memberships": JSON.stringify([
        { org_id: org.id, role: "org_owner", permissions: [], owner: true },
      ]),
    };
    expect((await call("GET", path, { headers: forged })).status).toBe(401);
    const intruder = await verifiedUser();
    const missing = await call("GET", "/api/v1/sites/01JAAAAAAAAAAAAAAAAAAAAAAA/webhooks", {
      token: intruder.access_token,
    });
    const list = await call("GET", path, { token: intruder.access_token, headers: forged });
    expect(list.status).toBe(404);
    expect(list.body).toEqual(missing.body);
    const create = await call("POST", path, {
      token: intruder.access_token,
      headers: forged,
      body: { url: inbox().url, events: ["post.published"] },
    });
    expect(create.status).toBe(404);
    const own = await call<{ items: unknown[] }>("GET", path, { token: owner.access_token });
    expect(own.status).toBe(200);
    expect(own.body.items).toEqual([]);
  });
});
