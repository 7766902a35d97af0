/**
 * `GET /__dev/mail` (issue 36): the dev outbox as a mailbox, only where identity's dev outbox is on, and
 * inert whatever a mail carries: values escaped in the list, each mail's HTML only inside a sandboxed
 * `srcdoc` (no allow-scripts), a CSP without any script source.
 */
import { describe, expect, it } from "vitest";
import { DEV_MAIL_CSP, devMail } from "../../src/gateway/dev-mail";
import { call, createOrg, uniqueEmail, verifiedUser } from "../support/platform";

const EVIL = `<script>alert("x")</script>`;

/** A binding standing in for identity: answers the dev outbox route with `status` and `messages`. */
function identityAnswering(status: number, messages: unknown[] = []): Fetcher {
  return {
    fetch: async (input: RequestInfo | URL) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      expect(url.pathname).toBe("/api/v1/auth/__dev/outbox");
      expect(url.search).toBe("");
      return status === 200
        ? Response.json({ messages })
        : Response.json(
            { code: "NOT_FOUND" },
            { status, headers: { "content-type": "application/problem+json" } },
          );
    },
  } as unknown as Fetcher;
}

/** The page's HTML with every srcdoc attribute's value taken out. */
const outsideFrames = (page: string) => page.replace(/srcdoc="[^"]*"/g, 'srcdoc=""');

describe("GET /__dev/mail", () => {
  it("is 404 where identity's dev outbox is off (every deploy)", async () => {
    const res = await devMail(identityAnswering(404));
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("<iframe");
  });

  it("lists the outbox newest first through the gateway where the dev outbox is on", async () => {
    const owner = await verifiedUser();
    const org = await createOrg(owner.access_token, `Mailbox ${EVIL}`);
    const invitee = uniqueEmail("mailbox");
    const invited = await call("POST", `/api/v1/auth/orgs/${org.id}/members`, {
      token: owner.access_token,
      body: { email: invitee, role: "member" },
    });
    expect(invited.status).toBe(202);
    const res = await call<string>("GET", "/__dev/mail");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toBe(DEV_MAIL_CSP);
    const page = res.body;
    // The invitation (the newest of the two) comes before the owner's sign-up code.
    const invitation = page.indexOf(`To</dt><dd>${invitee}`);
    const signup = page.indexOf(`To</dt><dd>${owner.user.email}`);
    expect(invitation).toBeGreaterThan(-1);
    expect(signup).toBeGreaterThan(invitation);
    // The organization's name carries a script: escaped in the list, and only escaped inside srcdoc.
    expect(page).not.toContain("<script");
    expect(outsideFrames(page)).toContain(
      "You are invited to Mailbox &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;",
    );
  });

  it("a mail whose subject and body carry <script> renders inert", async () => {
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body><p>${EVIL}</p><a href="https://example.com/x?a=1&b=2">open</a></body></html>`;
    const res = await devMail(
      identityAnswering(200, [
        {
          to: `"><script>alert(1)</script>@example.com`,
          channel: "email",
          purpose: "invitation",
          subject: `Hello ${EVIL}`,
          created_at: "2026-11-28T12:00:00.000Z",
          body: `text ${EVIL}`,
          html,
        },
        {
          to: "+5511987654321",
          channel: "sms",
          purpose: "phone_verify",
          subject: "Phone verification",
          created_at: "2026-11-28T11:00:00.000Z",
          body: `code ${EVIL}`,
          html: null,
        },
      ]),
    );
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src/);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const page = await res.text();
    expect(page).not.toMatch(/<script/i);
    // The list: escaped text.
    expect(outsideFrames(page)).toContain("Hello &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(outsideFrames(page)).toContain("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;@example.com");
    expect(outsideFrames(page)).toContain("<pre>code &lt;script&gt;");
    // The mail's HTML exists only inside srcdoc, attribute-escaped; the frame cannot run scripts.
    const frames = [...page.matchAll(/<iframe ([^>]*)><\/iframe>/g)].map((m) => m[1]!);
    expect(frames).toHaveLength(1);
    const frame = frames[0]!;
    expect(frame).toContain('sandbox="allow-popups allow-popups-to-escape-sandbox"');
    expect(frame).not.toContain("allow-scripts");
    expect(frame).not.toContain("allow-same-origin");
    const srcdoc = /srcdoc="([^"]*)"/.exec(frame)![1]!;
    expect(srcdoc).not.toMatch(/[<>"]/);
    const decoded = srcdoc
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
    expect(decoded).toContain('<head><base target="_blank"><meta charset="utf-8">');
    expect(decoded).toContain(html.replace("<head>", '<head><base target="_blank">'));
  });
});
