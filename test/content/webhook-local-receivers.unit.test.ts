/** `http://localhost` webhook receivers (issue 22): allowed in development only (DEV_OUTBOX=true). */
import { describe, expect, it } from "vitest";
import { checkWebhookUrl } from "../../src/content/webhooks/admin";
import { safeWebhookSender, webhookSenderFor } from "../../src/content/webhooks/sender";

const loopback = { resolve: async () => ["127.0.0.1"] };

describe("local webhook receivers", () => {
  it("in development, http receivers on localhost, 127.0.0.1 and ::1 are registered and sent to", async () => {
    const sent: string[] = [];
    const sender = safeWebhookSender({
      resolver: loopback,
      localReceivers: true,
      fetcher: async (input) => {
        sent.push(String(input));
        return new Response(null, { status: 204 });
      },
    });
    for (const url of ["http://localhost:8080/hook", "http://127.0.0.1/h", "http://[::1]:3000/x"]) {
      expect(await checkWebhookUrl(url, sender)).toBe(url);
      expect(await sender.send(url, {}, "{}")).toEqual({ kind: "delivered", status: 204 });
    }
    expect(sent).toEqual(["http://localhost:8080/hook", "http://127.0.0.1/h", "http://[::1]:3000/x"]);
    // Other plain-http receivers, and https to a loopback or private address, stay refused.
    await expect(checkWebhookUrl("https://localhost/hook", sender)).rejects.toMatchObject({
      code: "WEBHOOK_URL_NOT_PUBLIC",
    });
    await expect(checkWebhookUrl("http://example.com/hook", sender)).rejects.toMatchObject({
      code: "INVALID_WEBHOOK_URL",
    });
    await expect(checkWebhookUrl("https://10.0.0.1/hook", sender)).rejects.toMatchObject({
      code: "WEBHOOK_URL_NOT_PUBLIC",
    });
  });

  it("outside development they are refused at registration and at delivery, contacting nothing", async () => {
    let fetched = false;
    const sender = safeWebhookSender({
      resolver: loopback,
      fetcher: async () => {
        fetched = true;
        return new Response(null, { status: 204 });
      },
    });
    await expect(checkWebhookUrl("http://localhost:8080/hook", sender)).rejects.toMatchObject({
      code: "INVALID_WEBHOOK_URL",
    });
    await expect(checkWebhookUrl("https://localhost/hook", sender)).rejects.toMatchObject({
      code: "WEBHOOK_URL_NOT_PUBLIC",
    });
    const outcome = await sender.send("http://localhost:8080/hook", {}, "{}");
    expect(outcome).toMatchObject({ kind: "failed", error: "https_required" });
    expect(fetched).toBe(false);
  });

  it("development is DEV_OUTBOX=true only", () => {
    expect(webhookSenderFor({ DOH_URL: "https://dns.test/q", DEV_OUTBOX: "true" }).localReceivers).toBe(true);
    expect(webhookSenderFor({ DOH_URL: "https://dns.test/q" }).localReceivers).toBe(false);
    expect(webhookSenderFor({ DOH_URL: "https://dns.test/q", DEV_OUTBOX: "1" }).localReceivers).toBe(false);
  });
});
