/**
 * Issue 19 item 4: a form's `_token` carries a random id, and a token is good for ONE clean submission.
 * Every later submission with the same token is kept and flagged `reused_token` (the spam model: never
 * dropped, the same 202 answer, so a bot learns nothing), also when fifty race each other. Two tokens
 * minted in the same millisecond differ.
 */
import { describe, expect, it } from "vitest";
import { issueFormToken } from "../../src/content/forms/form-token";
import { call } from "../support/content-helpers";
import {
  contactForm,
  contactValues,
  freshIp,
  storedLeads,
  submit,
  tokenIssued,
} from "../support/leads-helpers";

describe("form tokens are single-use", () => {
  it("14 submissions with one token: only the first is clean, the others are flagged reused_token", async () => {
    const { site, form } = await contactForm();
    const token = await tokenIssued(site.id, form.id);
    for (let i = 0; i < 14; i++) {
      const res = await submit(site, form.id, contactValues(), { token, ip: freshIp() });
      expect(res.status).toBe(202);
    }
    const leads = await storedLeads(site.id);
    expect(leads).toHaveLength(14);
    const clean = leads.filter((l) => l.status === "clean");
    expect(clean).toHaveLength(1);
    for (const lead of leads.filter((l) => l.status !== "clean")) {
      expect(lead.status).toBe("spam");
      expect(lead.spam_reasons).toEqual(["reused_token"]);
    }
  });

  it("50 concurrent submissions with one token: exactly one clean", async () => {
    const { site, form } = await contactForm();
    const token = await tokenIssued(site.id, form.id);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => submit(site, form.id, contactValues(), { token, ip: freshIp() })),
    );
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 202));
    const leads = await storedLeads(site.id);
    expect(leads).toHaveLength(50);
    expect(leads.filter((l) => l.status === "clean")).toHaveLength(1);
    expect(leads.filter((l) => l.spam_reasons.includes("reused_token"))).toHaveLength(49);
  });

  it("a fresh token per submission stays clean", async () => {
    const { site, form } = await contactForm();
    for (let i = 0; i < 3; i++) {
      expect((await submit(site, form.id, contactValues(), { ip: freshIp() })).status).toBe(202);
    }
    expect((await storedLeads(site.id)).every((l) => l.status === "clean")).toBe(true);
  });

  it("two tokens minted in the same millisecond differ (also as the form route hands them out)", async () => {
    const at = 1_750_000_000_123;
    const a = await issueFormToken("secret", "S", "F", at);
    const b = await issueFormToken("secret", "S", "F", at);
    expect(a).not.toBe(b);
    const { site, form } = await contactForm();
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await call("GET", `/v1/sites/${site.id}/forms/${form.id}`);
        return ((await res.json()) as { token: string }).token;
      }),
    );
    expect(new Set(answers).size).toBe(20);
  });
});
