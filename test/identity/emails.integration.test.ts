import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  callWith,
  expectForeignLikeMissing,
  freshEmail,
  freshIp,
  json,
  latestCode,
  outbox,
  problem,
  signupVerified,
} from "../support/identity-helpers";

const e = env as unknown as IdentityEnv;

interface EmailItem {
  id: string;
  email: string;
  verified: boolean;
  primary: boolean;
}

async function addAndVerify(token: string, email = freshEmail("extra")) {
  const added = await json<EmailItem>(
    await call("POST", "/api/v1/auth/emails", { token, body: { email }, ip: freshIp() }),
  );
  const code = await latestCode(email, "email_add");
  const res = await call("POST", "/api/v1/auth/emails/verify", {
    token,
    body: { email, code },
    ip: freshIp(),
  });
  expect(res.status).toBe(200);
  return added;
}

describe("GET /auth/emails", () => {
  it("lists the caller's addresses with a server-decided nudge", async () => {
    const { session, email } = await signupVerified();
    const res = await call("GET", "/api/v1/auth/emails", { token: session.access_token });
    expect(res.status).toBe(200);
    const body = await json<{ items: EmailItem[]; nudge: string | null }>(res);
    expect(body.items).toEqual([expect.objectContaining({ email, verified: true, primary: true })]);
    expect(body.nudge).toBe("add_backup_email");
    expect((await call("GET", "/api/v1/auth/emails")).status).toBe(401);
  });
});

describe("POST /auth/emails", () => {
  it("adds a pending address (202) and sends an email_add code", async () => {
    const { session } = await signupVerified();
    const email = freshEmail("extra");
    const res = await call("POST", "/api/v1/auth/emails", {
      token: session.access_token,
      body: { email },
      ip: freshIp(),
    });
    expect(res.status).toBe(202);
    expect((await json<EmailItem>(res)).verified).toBe(false);
    expect((await outbox(email))[0]!.purpose).toBe("email_add");
  });

  it("answers the same 202 for an address verified on another account (never says it belongs to someone else)", async () => {
    const other = await signupVerified();
    const { session } = await signupVerified();
    const res = await call("POST", "/api/v1/auth/emails", {
      token: session.access_token,
      body: { email: other.email },
      ip: freshIp(),
    });
    expect(res.status).toBe(202);
  });

  it("409 EMAIL_ALREADY_ADDED for an address already on this account; 400 INVALID_EMAIL for garbage", async () => {
    const { session, email } = await signupVerified();
    expect(
      await problem(
        await call("POST", "/api/v1/auth/emails", {
          token: session.access_token,
          body: { email },
          ip: freshIp(),
        }),
      ),
    ).toMatchObject({ status: 409, code: "EMAIL_ALREADY_ADDED" });
    expect(
      await problem(
        await call("POST", "/api/v1/auth/emails", {
          token: session.access_token,
          body: { email: "nope" },
          ip: freshIp(),
        }),
      ),
    ).toMatchObject({ status: 400, code: "INVALID_EMAIL" });
    expect(
      (
        await problem(
          await call("POST", "/api/v1/auth/emails", { token: session.access_token, body: {}, ip: freshIp() }),
        )
      ).status,
    ).toBe(400);
  });

  it("409 EMAIL_LIMIT_REACHED at 10 addresses (9 extra accepted, the 11th refused)", async () => {
    const { session } = await signupVerified();
    const now = new Date().toISOString();
    const rows = Array.from({ length: 9 }, () =>
      e.DB.prepare(
        "INSERT INTO email_addresses (id, user_id, address, verified_at, is_primary, created_at) VALUES (?, ?, ?, NULL, 0, ?)",
      ).bind(crypto.randomUUID(), session.user.id, freshEmail("fill"), now),
    );
    await e.DB.batch(rows.slice(0, 8));
    const ninth = await call("POST", "/api/v1/auth/emails", {
      token: session.access_token,
      body: { email: freshEmail() },
      ip: freshIp(),
    });
    expect(ninth.status).toBe(202);
    expect(
      await problem(
        await call("POST", "/api/v1/auth/emails", {
          token: session.access_token,
          body: { email: freshEmail() },
          ip: freshIp(),
        }),
      ),
    ).toMatchObject({ status: 409, code: "EMAIL_LIMIT_REACHED" });
  });

  it("limits additions of the same target address to 3 per hour (429)", async () => {
    const target = freshEmail("target");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const { session } = await signupVerified();
      statuses.push(
        (
          await call("POST", "/api/v1/auth/emails", {
            token: session.access_token,
            body: { email: target },
            ip: freshIp(),
          })
        ).status,
      );
    }
    expect(statuses).toEqual([202, 202, 202, 429]);
  });
});

describe("POST /auth/emails/verify", () => {
  it("proves the address; a second verify is 409 EMAIL_ALREADY_ADDED without burning a code", async () => {
    const { session } = await signupVerified();
    const email = freshEmail("extra");
    await addAndVerify(session.access_token, email);
    expect(
      await problem(
        await call("POST", "/api/v1/auth/emails/verify", {
          token: session.access_token,
          body: { email, code: "123456" },
          ip: freshIp(),
        }),
      ),
    ).toMatchObject({ status: 409, code: "EMAIL_ALREADY_ADDED" });
  });

  it("one 401 CODE_INVALID for wrong, used and exhausted codes; 404 EMAIL_NOT_FOUND for an address not on the account", async () => {
    const { session } = await signupVerified();
    const t = session.access_token;
    const email = freshEmail("extra");
    await call("POST", "/api/v1/auth/emails", { token: t, body: { email }, ip: freshIp() });
    const code = await latestCode(email, "email_add");
    const wrong = code === "000000" ? "111111" : "000000";
    const bodies: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call("POST", "/api/v1/auth/emails/verify", {
        token: t,
        body: { email, code: wrong },
        ip: freshIp(),
      });
      expect(res.status).toBe(401);
      bodies.push(await res.text());
    }
    // Exhausted: the right code now gets the very same answer.
    const exhausted = await call("POST", "/api/v1/auth/emails/verify", {
      token: t,
      body: { email, code },
      ip: freshIp(),
    });
    expect(exhausted.status).toBe(401);
    expect(await exhausted.text()).toBe(bodies[0]);
    expect(
      await problem(
        await call("POST", "/api/v1/auth/emails/verify", {
          token: t,
          body: { email: freshEmail(), code },
          ip: freshIp(),
        }),
      ),
    ).toMatchObject({ status: 404, code: "EMAIL_NOT_FOUND" });
  });

  it("the first account to prove the address keeps it: the other gets 409 EMAIL_TAKEN", async () => {
    const a = await signupVerified();
    const b = await signupVerified();
    const email = freshEmail("contested");
    await call("POST", "/api/v1/auth/emails", {
      token: a.session.access_token,
      body: { email },
      ip: freshIp(),
    });
    const codeA = await latestCode(email, "email_add");
    await call("POST", "/api/v1/auth/emails", {
      token: b.session.access_token,
      body: { email },
      ip: freshIp(),
    });
    const codeB = await latestCode(email, "email_add");
    expect(
      (
        await call("POST", "/api/v1/auth/emails/verify", {
          token: b.session.access_token,
          body: { email, code: codeB },
          ip: freshIp(),
        })
      ).status,
    ).toBe(200);
    const res = await call("POST", "/api/v1/auth/emails/verify", {
      token: a.session.access_token,
      body: { email, code: codeA },
      ip: freshIp(),
    });
    expect(await problem(res)).toMatchObject({ status: 409, code: "EMAIL_TAKEN" });
  });
});

describe("POST /auth/emails/{id}/primary (step-up)", () => {
  it("two calls: 428 with the code sent to the CURRENT primary, then 200 with the code", async () => {
    const { session, email } = await signupVerified();
    const t = session.access_token;
    const added = await addAndVerify(t);
    const first = await problem(await call("POST", `/api/v1/auth/emails/${added.id}/primary`, { token: t }));
    expect(first).toMatchObject({ status: 428, code: "STEP_UP_REQUIRED" });
    expect(first.body.details).toEqual({ channel: "email", sent_to: `${email[0]}***@example.com` });
    expect((await outbox(added.email))[0]!.purpose).toBe("email_add");
    const code = await latestCode(email, "sensitive_action");
    expect(
      (
        await problem(
          await call("POST", `/api/v1/auth/emails/${added.id}/primary`, {
            token: t,
            body: { code: "000000" },
          }),
        )
      ).code,
    ).toBe(code === "000000" ? undefined : "CODE_INVALID");
    const res = await call("POST", `/api/v1/auth/emails/${added.id}/primary`, { token: t, body: { code } });
    expect(res.status).toBe(200);
    expect((await json<EmailItem>(res)).primary).toBe(true);
    const list = await json<{ items: EmailItem[] }>(await call("GET", "/api/v1/auth/emails", { token: t }));
    expect(list.items.filter((i) => i.primary).map((i) => i.id)).toEqual([added.id]);
  });

  it("promoting the current primary is 200 and burns no code", async () => {
    const { session } = await signupVerified();
    const list = await json<{ items: EmailItem[] }>(
      await call("GET", "/api/v1/auth/emails", { token: session.access_token }),
    );
    const primary = list.items[0]!;
    const res = await call("POST", `/api/v1/auth/emails/${primary.id}/primary`, {
      token: session.access_token,
    });
    expect(res.status).toBe(200);
    expect((await outbox(primary.email)).some((m) => m.purpose === "sensitive_action")).toBe(false);
  });

  it("an unverified target is refused with 409 before any code is sent; another account's id is 404", async () => {
    const { session, email } = await signupVerified();
    const pending = await json<EmailItem>(
      await call("POST", "/api/v1/auth/emails", {
        token: session.access_token,
        body: { email: freshEmail() },
        ip: freshIp(),
      }),
    );
    expect(
      await problem(
        await call("POST", `/api/v1/auth/emails/${pending.id}/primary`, { token: session.access_token }),
      ),
    ).toMatchObject({ status: 409, code: "EMAIL_NOT_VERIFIED" });
    expect((await outbox(email)).some((m) => m.purpose === "sensitive_action")).toBe(false);
    const other = await signupVerified();
    const primary = (id: string) => `/api/v1/auth/emails/${id}/primary`;
    await expectForeignLikeMissing("POST", primary, pending.id, other.session.access_token);
  });

  it("503 STEP_UP_UNAVAILABLE when the code cannot be sent", async () => {
    const { session } = await signupVerified();
    const added = await addAndVerify(session.access_token);
    const p = await problem(
      await callWith(
        { DEV_OUTBOX: "false", MAIL_PROVIDER_URL: "https://mail-down.test/send" },
        "POST",
        `/api/v1/auth/emails/${added.id}/primary`,
        { token: session.access_token },
      ),
    );
    expect(p).toMatchObject({ status: 503, code: "STEP_UP_UNAVAILABLE" });
  });
});

describe("DELETE /auth/emails/{id}", () => {
  it("removes a secondary address without step-up; refuses the primary (409 EMAIL_IS_PRIMARY)", async () => {
    const { session } = await signupVerified();
    const t = session.access_token;
    const added = await addAndVerify(t);
    expect((await call("DELETE", `/api/v1/auth/emails/${added.id}`, { token: t })).status).toBe(204);
    const list = await json<{ items: EmailItem[] }>(await call("GET", "/api/v1/auth/emails", { token: t }));
    expect(list.items).toHaveLength(1);
    expect(
      await problem(await call("DELETE", `/api/v1/auth/emails/${list.items[0]!.id}`, { token: t })),
    ).toMatchObject({
      status: 409,
      code: "EMAIL_IS_PRIMARY",
    });
    expect(
      await problem(await call("DELETE", `/api/v1/auth/emails/${added.id}`, { token: t })),
    ).toMatchObject({
      status: 404,
      code: "EMAIL_NOT_FOUND",
    });
  });

  it("never removes the last verified address (409 EMAIL_LAST_VERIFIED)", async () => {
    const { session } = await signupVerified();
    const t = session.access_token;
    const added = await addAndVerify(t);
    // Make the primary unverified so the secondary is the only verified address left.
    await e.DB.prepare("UPDATE email_addresses SET verified_at = NULL WHERE user_id = ? AND is_primary = 1")
      .bind(session.user.id)
      .run();
    expect(
      await problem(await call("DELETE", `/api/v1/auth/emails/${added.id}`, { token: t })),
    ).toMatchObject({
      status: 409,
      code: "EMAIL_LAST_VERIFIED",
    });
  });
});
