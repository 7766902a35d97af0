import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/identity/core/worker-env";
import type { OutboundMessage } from "../../src/identity/messaging/messages";
import type { Mailer } from "../../src/identity/messaging/messaging";
import { signUp } from "../../src/identity/signup/signup";
import { callLogger } from "../../src/lib/log";
import { freshEmail, GOOD_PASSWORD, signupVerified } from "../support/identity-helpers";

const log = callLogger("identity-test");

const e = env as unknown as Env;

/** The real bindings, with the D1 batches counted (statements per batch). */
function countingEnv() {
  const batches: number[] = [];
  const DB = new Proxy(e.DB, {
    get(target, key) {
      if (key === "batch") {
        return (statements: D1PreparedStatement[]) => {
          batches.push(statements.length);
          return target.batch(statements);
        };
      }
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { env: { ...e, DB } as Env, batches };
}

function recordingMailer(fails = false) {
  const sent: OutboundMessage[] = [];
  const mailer: Mailer = {
    async send(message) {
      sent.push(message);
      if (fails) throw new Error("provider down");
    },
  };
  return { mailer, sent };
}

async function accountsWith(address: string): Promise<number> {
  const row = await e.DB.prepare("SELECT COUNT(*) AS n FROM email_addresses WHERE address = ?")
    .bind(address)
    .first<{ n: number }>();
  return row!.n;
}

describe("signUp (after the answer): a new and a registered address do the same work", () => {
  it("one four-statement batch and one message to the address on both paths", async () => {
    const fresh = freshEmail();
    const { email: registered } = await signupVerified();

    const newPath = countingEnv();
    const newMail = recordingMailer();
    await signUp(newPath.env, newMail.mailer, fresh, GOOD_PASSWORD, log);

    const oldPath = countingEnv();
    const oldMail = recordingMailer();
    await signUp(oldPath.env, oldMail.mailer, registered, "another-long-password-9", log);

    expect(newPath.batches).toEqual([4]);
    expect(oldPath.batches).toEqual(newPath.batches);
    expect(newMail.sent.map((m) => [m.to, m.purpose])).toEqual([[fresh, "email_verify"]]);
    expect(oldMail.sent.map((m) => [m.to, m.purpose])).toEqual([[registered, "signup_notice"]]);
    expect(oldMail.sent[0]!.code).toBeUndefined();
  });

  it("opens a pending account only for the new address; the registered one keeps its single account", async () => {
    const fresh = freshEmail();
    const { email: registered } = await signupVerified();
    await signUp(e, recordingMailer().mailer, fresh, GOOD_PASSWORD, log);
    await signUp(e, recordingMailer().mailer, registered, GOOD_PASSWORD, log);
    expect(await accountsWith(fresh)).toBe(1);
    expect(await accountsWith(registered)).toBe(1);
  });

  it("a failed delivery is logged, never thrown, on either path", async () => {
    const { email: registered } = await signupVerified();
    for (const address of [freshEmail(), registered]) {
      const { mailer, sent } = recordingMailer(true);
      await expect(signUp(e, mailer, address, GOOD_PASSWORD, log)).resolves.toBeUndefined();
      expect(sent).toHaveLength(1);
    }
  });
});
