/**
 * `POST …/webhooks/{id}/test` (issue 22): a signed ping the test receiver verifies, answered with the
 * receiver's status and latency (never its body), through the delivery's URL checks, rate limited, and
 * walled like every webhook administration.
 */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { call, makeSite, ownerHeaders, problem, staffHeaders } from "../support/content-helpers";
import {
  createWebhook,
  defineReceiverHost,
  inbox,
  payloads,
  received,
  trustSecrets,
  webhooksPath,
} from "../support/webhook-helpers";

interface Ping {
  event_id: string;
  delivered: boolean;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
}

const ping = (siteId: string, id: string, headers: Record<string, string>) =>
  call("POST", `${webhooksPath(siteId)}/${id}/test`, { headers });

describe("webhook test ping", () => {
  it("sends a signed ping the receiver verifies, and answers its status and the latency", async () => {
    const site = await makeSite();
    const { box, url } = inbox();
    const hook = await createWebhook(site, { url });
    await trustSecrets(box, [hook.secret]);
    const res = await ping(site.id, hook.id, ownerHeaders(site));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Ping;
    expect(body).toMatchObject({ delivered: true, status_code: 204, error: null });
    expect(body.latency_ms).toBeGreaterThanOrEqual(0);
    const got = await received(box);
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
    expect(got[0]!.id).toBe(body.event_id);
    expect(payloads(got)[0]).toMatchObject({ type: "ping", data: { site_id: site.id, webhook_id: hook.id } });
  });

  it("a failing receiver is reported by status, never by body; a host now private is refused like a delivery", async () => {
    const site = await makeSite();
    const failing = await createWebhook(site, { url: inbox("status/500").url });
    const res = await ping(site.id, failing.id, ownerHeaders(site));
    const body = (await res.json()) as Ping;
    expect(body).toMatchObject({ delivered: false, status_code: 500, error: "http_500" });
    expect(JSON.stringify(body)).not.toContain("status 500");
    const name = `ping-${newId().toLowerCase()}.test`;
    await defineReceiverHost(name, ["93.184.216.34"]);
    const hook = await createWebhook(site, { url: `https://${name}/inbox/x` });
    await defineReceiverHost(name, ["10.0.0.7"]);
    const refused = (await (await ping(site.id, hook.id, ownerHeaders(site))).json()) as Ping;
    expect(refused).toMatchObject({ delivered: false, status_code: null, error: "destination_not_public" });
  });

  it("at most 5 pings per webhook per minute: the 6th is 429 with Retry-After", async () => {
    const site = await makeSite();
    const hook = await createWebhook(site, { url: inbox().url });
    for (let i = 0; i < 5; i++) expect((await ping(site.id, hook.id, ownerHeaders(site))).status).toBe(200);
    const limited = await ping(site.id, hook.id, ownerHeaders(site));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await problem(limited)).code).toBe("RATE_LIMITED");
  });

  it("another site's webhook, an unknown id and a non-member are the same 404", async () => {
    const site = await makeSite();
    const other = await makeSite();
    const hook = await createWebhook(site, { url: inbox().url });
    const missing = await ping(site.id, "01JAAAAAAAAAAAAAAAAAAAAAAA", ownerHeaders(site));
    expect(missing.status).toBe(404);
    const foreign = await ping(other.id, hook.id, ownerHeaders(other));
    expect(foreign.status).toBe(404);
    const stranger = await ping(site.id, hook.id, staffHeaders("stranger", { org: [] }));
    expect(stranger.status).toBe(404);
  });
});

describe("webhook event types", () => {
  it("a webhook subscribes to post.deleted (the event of DELETE /v1/posts/{reference}); unknown types stay 400", async () => {
    const site = await makeSite();
    const res = await call("POST", webhooksPath(site.id), {
      headers: ownerHeaders(site),
      body: { url: inbox().url, events: ["post.deleted", "post.unpublished"] },
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { events: string[] }).events).toEqual(["post.deleted", "post.unpublished"]);
    const unknown = await call("POST", webhooksPath(site.id), {
      headers: ownerHeaders(site),
      body: { url: inbox().url, events: ["post.exploded"] },
    });
    expect(unknown.status).toBe(400);
  });
});
