/**
 * Issue 9, item 1: the primary address is told at once when an address is added or proven and when the
 * password is reset, and the notice of an added address carries a one-click removal link that also ends
 * every session (the access token that added it is presumed stolen).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signDisownToken } from "../../src/identity/emails/address-disown";
import {
  call,
  callWith,
  freshEmail,
  freshIp,
  json,
  latestCode,
  outbox,
  problem,
  type SessionBody,
  signupVerified,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;
const MAIL_DOWN = { DEV_OUTBOX: "false", MAIL_PROVIDER_URL: "https://mail-down.test/send" };

interface EmailItem {
  id: string;
  email: string;
  usable_from?: string;
}

/** The newest message of `purpose` to `to`, with its body (which the dev outbox route does not list). */
async function message(to: string, purpose: string) {
  return e.DB.prepare(
    "SELECT subject, body, link FROM outbox_messages WHERE to_address = ? AND purpose = ? ORDER BY id DESC LIMIT 1",
  )
    .bind(to, purpose)
    .first<{ subject: string; body: string; link: string | null }>();
}

function add(token: string, email: string) {
  return call("POST", "/api/v1/auth/emails", { token, body: { email }, ip: freshIp() });
}

async function verify(token: string, email: string) {
  const code = await latestCode(email, "email_add");
  return call("POST", "/api/v1/auth/emails/verify", { token, body: { email, code }, ip: freshIp() });
}

function disown(token: string) {
  return call("POST", "/api/v1/auth/emails/disown", { body: { token }, ip: freshIp() });
}

async function removalToken(primary: string, purpose: string): Promise<string> {
  const link = (await message(primary, purpose))?.link ?? "";
  expect(link).toContain("/auth/emails/disown?token=");
  return new URL(link).searchParams.get("token") ?? "";
}

async function addressRow(id: string) {
  return e.DB.prepare("SELECT id FROM email_addresses WHERE id = ?").bind(id).first();
}

describe("notices to the primary address", () => {
  it("POST /auth/emails tells the primary at once: the added address, the cooling-off, a removal link", async () => {
    const owner = await signupVerified();
    const extra = freshEmail("extra");
    expect((await add(owner.session.access_token, extra)).status).toBe(202);
    const notice = await message(owner.email, "email_added_notice");
    expect(notice?.body).toContain(extra);
    expect(notice?.body).toContain("72 hours");
    expect(notice?.body).toContain(notice?.link ?? "no link");
    await removalToken(owner.email, "email_added_notice");
    expect((await outbox(extra)).map((m) => m.purpose)).toEqual(["email_add"]);
  });

  it("POST /auth/emails/verify tells the primary again, with the moment the address becomes usable", async () => {
    const owner = await signupVerified();
    const extra = freshEmail("extra");
    await add(owner.session.access_token, extra);
    const verified = await json<EmailItem>(await verify(owner.session.access_token, extra));
    const notice = await message(owner.email, "email_verified_notice");
    expect(notice?.body).toContain(extra);
    expect(notice?.body).toContain(verified.usable_from ?? "no date");
    await removalToken(owner.email, "email_verified_notice");
  });

  it("a notice that cannot be sent never fails the addition or the proof", async () => {
    const owner = await signupVerified();
    const extra = freshEmail("extra");
    const t = owner.session.access_token;
    expect(
      (await callWith(MAIL_DOWN, "POST", "/api/v1/auth/emails", { token: t, body: { email: freshEmail() } }))
        .status,
    ).toBe(202);
    await add(t, extra);
    const code = await latestCode(extra, "email_add");
    const res = await callWith(MAIL_DOWN, "POST", "/api/v1/auth/emails/verify", {
      token: t,
      body: { email: extra, code },
      ip: freshIp(),
    });
    expect(res.status).toBe(200);
  });

  it("POST /auth/password/reset/confirm tells the primary and the address used (once when they are one)", async () => {
    const owner = await signupVerified();
    const extra = freshEmail("extra");
    await add(owner.session.access_token, extra);
    await verify(owner.session.access_token, extra);
    await e.DB.prepare("UPDATE email_addresses SET usable_at = NULL WHERE address = ?").bind(extra).run();

    await call("POST", "/api/v1/auth/password/reset/request", { body: { email: extra }, ip: freshIp() });
    const code = await latestCode(extra, "password_reset");
    const res = await call("POST", "/api/v1/auth/password/reset/confirm", {
      body: { email: extra, code, new_password: "a-brand-new-long-passphrase-1" },
      ip: freshIp(),
    });
    expect(res.status).toBe(204);
    expect((await message(owner.email, "password_reset_notice"))?.body).toContain(extra);
    expect(await message(extra, "password_reset_notice")).not.toBeNull();

    await call("POST", "/api/v1/auth/password/reset/request", {
      body: { email: owner.email },
      ip: freshIp(),
    });
    const again = await latestCode(owner.email, "password_reset");
    await call("POST", "/api/v1/auth/password/reset/confirm", {
      body: { email: owner.email, code: again, new_password: "another-brand-new-passphrase-2" },
      ip: freshIp(),
    });
    const notices = (await outbox(owner.email)).filter((m) => m.purpose === "password_reset_notice");
    expect(notices).toHaveLength(2);
  });
});

describe("POST /auth/emails/disown (the removal link)", () => {
  it("removes the added address and ends every session of the account in one step (204); again 204 once gone", async () => {
    const owner = await signupVerified();
    const extra = freshEmail("extra");
    const added = await json<EmailItem>(await add(owner.session.access_token, extra));
    const token = await removalToken(owner.email, "email_added_notice");

    expect((await disown(token)).status).toBe(204);
    expect(await addressRow(added.id)).toBeNull();
    expect((await call("GET", "/api/v1/auth/emails", { token: owner.session.access_token })).status).toBe(
      401,
    );
    expect(
      (
        await call("POST", "/api/v1/auth/refresh", {
          body: { refresh_token: owner.session.refresh_token },
          ip: freshIp(),
        })
      ).status,
    ).toBe(401);

    // The owner signs in again; a second click on the same link answers 204 and ends nothing new.
    await call("POST", "/api/v1/auth/magic-link/request", { body: { email: owner.email }, ip: freshIp() });
    const code = await latestCode(owner.email, "magic_link");
    const again = await json<SessionBody>(
      await call("POST", "/api/v1/auth/magic-link/verify", {
        body: { email: owner.email, code },
        ip: freshIp(),
      }),
    );
    expect((await disown(token)).status).toBe(204);
    expect((await call("GET", "/api/v1/auth/emails", { token: again.access_token })).status).toBe(200);
  });

  it("removes a verified (cooling) address with the link of the proof notice", async () => {
    const owner = await signupVerified();
    const extra = freshEmail("extra");
    const added = await json<EmailItem>(await add(owner.session.access_token, extra));
    await verify(owner.session.access_token, extra);
    expect((await disown(await removalToken(owner.email, "email_verified_notice"))).status).toBe(204);
    expect(await addressRow(added.id)).toBeNull();
  });

  it("401 CODE_INVALID for a tampered, expired or foreign token; nothing removed, sessions live", async () => {
    const owner = await signupVerified();
    const added = await json<EmailItem>(await add(owner.session.access_token, freshEmail("extra")));
    const token = await removalToken(owner.email, "email_added_notice");
    const last = token.at(-1) === "0" ? "1" : "0";
    const tampered = `${token.slice(0, -1)}${last}`;
    const claim = { kind: "email" as const, subjectId: added.id, userId: owner.session.user.id };
    const expired = await signDisownToken(e.OTP_PEPPER, claim, Date.now() - 8 * 24 * 3600 * 1000);
    const foreign = await signDisownToken("another-deployment-pepper", claim);
    for (const bad of [tampered, expired, foreign, "garbage"]) {
      expect(await problem(await disown(bad))).toMatchObject({ status: 401, code: "CODE_INVALID" });
    }
    expect(await addressRow(added.id)).not.toBeNull();
    expect((await call("GET", "/api/v1/auth/emails", { token: owner.session.access_token })).status).toBe(
      200,
    );
  });

  it("no longer removes the address once the owner made it primary (409 EMAIL_IS_PRIMARY, sessions live)", async () => {
    const owner = await signupVerified();
    const t = owner.session.access_token;
    const extra = freshEmail("extra");
    const added = await json<EmailItem>(await add(t, extra));
    await verify(t, extra);
    const token = await removalToken(owner.email, "email_verified_notice");
    await call("POST", `/api/v1/auth/emails/${added.id}/primary`, { token: t });
    const code = await latestCode(owner.email, "sensitive_action");
    expect(
      (await call("POST", `/api/v1/auth/emails/${added.id}/primary`, { token: t, body: { code } })).status,
    ).toBe(200);
    expect(await problem(await disown(token))).toMatchObject({ status: 409, code: "EMAIL_IS_PRIMARY" });
    expect((await call("GET", "/api/v1/auth/emails", { token: t })).status).toBe(200);
  });

  it("is in the OpenAPI document, without authentication", async () => {
    const doc = await json<{ paths: Record<string, Record<string, { security?: unknown[] }>> }>(
      await call("GET", "/openapi.json"),
    );
    const operation = doc.paths["/api/v1/auth/emails/disown"]?.post;
    expect(operation).toBeDefined();
    expect(operation?.security ?? []).toEqual([]);
  });
});
