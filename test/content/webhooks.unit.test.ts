/** Webhook rules as plain functions: Standard Webhooks signing, the sealed secret, the retry schedule, events. */
import { describe, expect, it } from "vitest";
import { postChangeEvent } from "../../src/content/posts/service";
import type { PostRow } from "../../src/content/posts/store";
import { retryDelaySeconds } from "../../src/content/webhooks/delivery";
import { isContentEvent, webhookBody } from "../../src/content/webhooks/events";
import {
  openWebhookSecret as openSecret,
  sealWebhookSecret as sealSecret,
} from "../../src/content/webhooks/secret-box";
import { retryAfterSeconds, safeWebhookSender } from "../../src/content/webhooks/sender";
import { generateWebhookSecret, signWebhook, webhookHeaders } from "../../src/content/webhooks/signature";
import { postRow } from "../support/post-row";

describe("Standard Webhooks signature", () => {
  it("reproduces the specification's test vector exactly", async () => {
    // The vector every Standard Webhooks (and Svix) library is tested with.
    expect(
      await signWebhook(
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "msg_p5jXN8AQM9LWM0D4loKWxJek",
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("the headers are webhook-id, webhook-timestamp (Unix seconds) and webhook-signature", async () => {
    const headers = await webhookHeaders("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "evt1", 1614265330, "{}");
    expect(Object.keys(headers).sort()).toEqual(["webhook-id", "webhook-signature", "webhook-timestamp"]);
    expect(headers["webhook-timestamp"]).toBe("1614265330");
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it("secrets are whsec_ + base64 of 32 random bytes, never twice the same", () => {
    const secrets = new Set(Array.from({ length: 50 }, () => generateWebhookSecret()));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(atob(secret.slice(6)).length).toBe(32);
    }
  });
});

describe("sealed secrets", () => {
  const server = "server-secret-for-tests-0123456789abcdef";

  it("round-trips, and every sealing is different (random IV)", async () => {
    const a = await sealSecret(server, "W1", "whsec_abc");
    const b = await sealSecret(server, "W1", "whsec_abc");
    expect(a).not.toBe(b);
    expect(a).not.toContain("abc");
    expect(await openSecret(server, "W1", a)).toBe("whsec_abc");
  });

  it("opens only for its own webhook and under the server secret, and refuses tampering", async () => {
    const sealed = await sealSecret(server, "W1", "whsec_abc");
    await expect(openSecret(server, "W2", sealed)).rejects.toThrow();
    await expect(openSecret(`${server}x`, "W1", sealed)).rejects.toThrow();
    const [v, iv, body] = sealed.split(".");
    const flipped = `${body![0] === "A" ? "B" : "A"}${body!.slice(1)}`;
    await expect(openSecret(server, "W1", `${v}.${iv}.${flipped}`)).rejects.toThrow();
    await expect(openSecret(server, "W1", "whsec_abc")).rejects.toThrow();
    await expect(sealSecret("", "W1", "whsec_abc")).rejects.toThrow();
  });
});

describe("retry schedule", () => {
  it("5 s × 6^(n−1) after failed attempt n, capped at 12 hours", () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelaySeconds(n, 5, undefined, middle))).toEqual([
      5, 30, 180, 1080, 6480, 38880, 43200, 43200,
    ]);
  });

  it("jitter stays within ±10%", () => {
    expect(retryDelaySeconds(3, 5, undefined, () => 0)).toBe(162);
    expect(retryDelaySeconds(3, 5, undefined, () => 0.999999)).toBe(198);
  });

  it("a receiver's Retry-After is honoured (still at most 12 hours)", () => {
    expect(retryDelaySeconds(1, 5, 600, () => 0.5)).toBe(600);
    expect(retryDelaySeconds(4, 5, 60, () => 0.5)).toBe(1080);
    expect(retryDelaySeconds(1, 5, 999_999, () => 0.5)).toBe(43_200);
  });

  it("Retry-After is read as seconds or as an HTTP date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterSeconds("120", now)).toBe(120);
    expect(retryAfterSeconds("Wed, 01 Jan 2025 00:05:00 GMT", now)).toBe(300);
    expect(retryAfterSeconds("Tue, 31 Dec 2024 00:00:00 GMT", now)).toBe(0);
    expect(retryAfterSeconds("soon", now)).toBeNull();
    expect(retryAfterSeconds(null, now)).toBeNull();
  });
});

describe("payloads", () => {
  it("the body is {type, timestamp, data}: the event's id travels as webhook-id, not in the body", () => {
    const body = webhookBody(
      {
        id: "E1",
        type: "post.published",
        site_id: "S1",
        post_id: "P1",
        occurred_at: "2025-01-01T00:00:00.000Z",
      },
      "2025-02-02T00:00:00.000Z",
    );
    expect(body).toBe(
      '{"type":"post.published","timestamp":"2025-01-01T00:00:00.000Z","data":{"site_id":"S1","post_id":"P1"}}',
    );
    // Events written by older code had no occurred_at: the fan-out time stands in.
    expect(
      JSON.parse(webhookBody({ id: "E2", type: "post.unpublished", site_id: "S1" }, "T")).timestamp,
    ).toBe("T");
    expect(isContentEvent({ id: "E", type: "t", site_id: "S" })).toBe(true);
    expect(isContentEvent({ kind: "webhook_delivery", delivery_id: "D" })).toBe(false);
  });
});

describe("which post event an edit is", () => {
  const now = "2025-06-01T12:00:00.000Z";
  const types = new Set(["post", "page"]);
  const post = (over: Partial<PostRow>): PostRow =>
    postRow({
      id: "P",
      site_id: "S",
      slug: "s",
      title: "T",
      status: "published",
      published_at: "2025-06-01T00:00:00.000Z",
      created_by_key_id: null,
      created_at: now,
      updated_at: now,
      ...over,
    });
  const future = "2025-07-01T00:00:00.000Z";

  it("entering public view is post.published; staying is post.updated; leaving is post.unpublished", () => {
    expect(postChangeEvent(post({ status: "draft" }), post({}), now, types)).toBe("post.published");
    expect(postChangeEvent(post({ access: "restricted" }), post({}), now, types)).toBe("post.published");
    expect(postChangeEvent(post({}), post({ title: "New" }), now, types)).toBe("post.updated");
    expect(postChangeEvent(post({}), post({ status: "archived" }), now, types)).toBe("post.unpublished");
    expect(postChangeEvent(post({}), post({ published_at: future, status: "scheduled" }), now, types)).toBe(
      "post.unpublished",
    );
    expect(postChangeEvent(post({}), post({ post_type: "private-type" }), now, types)).toBe(
      "post.unpublished",
    );
  });

  it("edits nobody outside sees are silent; a due scheduled post never announced is published by its first edit", () => {
    expect(
      postChangeEvent(post({ status: "draft" }), post({ status: "draft", title: "x" }), now, types),
    ).toBeNull();
    expect(
      postChangeEvent(
        post({ status: "scheduled", published_at: future }),
        post({ status: "scheduled", published_at: future }),
        now,
        types,
      ),
    ).toBeNull();
    expect(postChangeEvent(post({ status: "scheduled" }), post({ status: "published" }), now, types)).toBe(
      "post.published",
    );
  });
});

describe("the webhook sender", () => {
  const publicResolver = { resolve: async () => ["93.184.216.34"] };
  const privateResolver = { resolve: async () => ["10.0.0.5"] };

  it("POSTs the body with the signature headers, never following a redirect", async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const sender = safeWebhookSender({
      resolver: publicResolver,
      fetcher: async (input, init) => {
        calls.push({ url: String(input), init: init! });
        return new Response(null, { status: 302, headers: { location: "http://10.0.0.5/" } });
      },
    });
    const outcome = await sender.send("https://receiver.example.com/hook", { "webhook-id": "E" }, "{}");
    expect(outcome).toEqual({ kind: "failed", status: 302, error: "http_302", retryable: true });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.init).toMatchObject({ method: "POST", redirect: "manual", body: "{}" });
    expect(calls[0]!.init.headers).toMatchObject({ "content-type": "application/json", "webhook-id": "E" });
  });

  it("refuses a destination that resolves to a private address without contacting it", async () => {
    let fetched = false;
    const sender = safeWebhookSender({
      resolver: privateResolver,
      fetcher: async () => {
        fetched = true;
        return new Response(null, { status: 204 });
      },
    });
    expect(await sender.send("https://receiver.example.com/hook", {}, "{}")).toEqual({
      kind: "failed",
      status: null,
      error: "destination_not_public",
      retryable: false,
    });
    expect(await sender.send("http://receiver.example.com/hook", {}, "{}")).toMatchObject({
      error: "https_required",
      retryable: false,
    });
    expect(fetched).toBe(false);
  });

  it("2xx is delivered; 410 is final; 429 carries its Retry-After; a hung receiver times out", async () => {
    const answer = (res: () => Promise<Response>) =>
      safeWebhookSender({ resolver: publicResolver, timeoutMs: 200, fetcher: res });
    const url = "https://receiver.example.com/hook";
    expect(await answer(async () => new Response("ok", { status: 200 })).send(url, {}, "{}")).toEqual({
      kind: "delivered",
      status: 200,
    });
    expect(await answer(async () => new Response(null, { status: 410 })).send(url, {}, "{}")).toMatchObject({
      retryable: false,
      status: 410,
    });
    expect(
      await answer(async () => new Response(null, { status: 429, headers: { "retry-after": "90" } })).send(
        url,
        {},
        "{}",
      ),
    ).toMatchObject({ retryable: true, status: 429, retryAfterSeconds: 90 });
    expect(await answer(() => new Promise<Response>(() => {})).send(url, {}, "{}")).toEqual({
      kind: "failed",
      status: null,
      error: "timeout",
      retryable: true,
    });
    expect(
      await answer(async () => {
        throw new TypeError("connection reset");
      }).send(url, {}, "{}"),
    ).toMatchObject({ error: "network_error", retryable: true });
  });
});
