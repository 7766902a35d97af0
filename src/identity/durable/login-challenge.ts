import { DurableObject } from "cloudflare:workers";
import { LOGIN_CHALLENGE_MAX_FAILURES } from "../config";
import { timingSafeEqual } from "../crypto";
import { consumeRecoveryCode, verifyTotp } from "../factors";
import type { GuardKey } from "../guards";
import { type PasskeyAssertionResult, verifyPasskeyAssertion } from "../passkeys";
import type { Env } from "../worker-env";
import { Mutex } from "./mutex";

export type LoginMethod = "totp" | "email" | "sms" | "passkey" | "recovery_code";

export interface ChallengeInit {
  userId: string;
  /** The password guard the first factor counted on: cleared when the challenge succeeds. */
  guardKey: GuardKey;
  /** What opened the challenge: a proven password, or a magic-link code (then e-mail is never a method). */
  firstFactor: "password" | "magic_link";
  methods: LoginMethod[];
  expiresAt: number;
}

interface ChallengeState extends ChallengeInit {
  failures: number;
  status: "open" | "consumed" | "dead";
  sentCode?: { method: "email" | "sms"; codeHash: string; expiresAt: number };
  passkeyChallenge?: string;
}

export type VerifyOutcome =
  | { kind: "ok"; userId: string; guardKey: GuardKey; firstFactor: ChallengeInit["firstFactor"] }
  | { kind: "invalid" }
  | { kind: "method_not_available" }
  | { kind: "ceremony_invalid" }
  | { kind: "wrong"; remaining: number; reason: "code" | "passkey" | "clone" }
  | { kind: "dead" };

export type VerifyInput =
  | { method: "totp" | "recovery_code"; code: string }
  | { method: "email" | "sms"; codeHash: string }
  | { method: "passkey"; credential: unknown };

/**
 * One instance per phased-login challenge. Every verification runs under one lock, so the attempt
 * counter and single use are exact: 50 concurrent wrong codes evaluate at most 5, and of concurrent
 * right codes exactly one consumes the challenge. The instance wipes itself at expiry.
 */
export class LoginChallenge extends DurableObject<Env> {
  private readonly lock = new Mutex();

  private async state(): Promise<ChallengeState | null> {
    const s = await this.ctx.storage.get<ChallengeState>("s");
    if (!s || Date.now() >= s.expiresAt) return null;
    return s;
  }

  async open(init: ChallengeInit): Promise<void> {
    await this.ctx.storage.put("s", { ...init, failures: 0, status: "open" } satisfies ChallengeState);
    await this.ctx.storage.setAlarm(init.expiresAt);
  }

  /** The open challenge's account and methods, or null when it is unusable. */
  async describe(): Promise<{ userId: string; methods: LoginMethod[]; expiresAt: number } | null> {
    const s = await this.state();
    if (s?.status !== "open") return null;
    return { userId: s.userId, methods: s.methods, expiresAt: s.expiresAt };
  }

  /** Stores the hash of a code just generated for e-mail/SMS delivery (replaces an earlier one). */
  async armCode(method: "email" | "sms", codeHash: string, expiresAt: number): Promise<boolean> {
    return this.lock.run(async () => {
      const s = await this.state();
      if (s?.status !== "open") return false;
      s.sentCode = { method, codeHash, expiresAt: Math.min(expiresAt, s.expiresAt) };
      await this.ctx.storage.put("s", s);
      return true;
    });
  }

  /** Keeps the WebAuthn challenge on the server; the client only echoes it in the signed assertion. */
  async armPasskey(challenge: string): Promise<boolean> {
    return this.lock.run(async () => {
      const s = await this.state();
      if (s?.status !== "open") return false;
      s.passkeyChallenge = challenge;
      await this.ctx.storage.put("s", s);
      return true;
    });
  }

  async verify(input: VerifyInput): Promise<VerifyOutcome> {
    return this.lock.run(async () => {
      const s = await this.state();
      if (!s) return { kind: "invalid" };
      if (s.status === "dead") return { kind: "dead" };
      if (s.status !== "open") return { kind: "invalid" };
      if (!s.methods.includes(input.method)) return { kind: "method_not_available" };
      if (input.method === "passkey" && !s.passkeyChallenge) return { kind: "ceremony_invalid" };

      let ok = false;
      let reason: "code" | "passkey" | "clone" = "code";
      switch (input.method) {
        case "totp":
          ok = await verifyTotp(this.env, s.userId, input.code, "confirmed");
          break;
        case "recovery_code":
          ok = await consumeRecoveryCode(this.env, s.userId, input.code);
          break;
        case "email":
        case "sms":
          ok =
            s.sentCode?.method === input.method &&
            Date.now() < s.sentCode.expiresAt &&
            timingSafeEqual(s.sentCode.codeHash, input.codeHash);
          break;
        case "passkey": {
          const result: PasskeyAssertionResult = await verifyPasskeyAssertion(
            this.env,
            s.userId,
            s.passkeyChallenge!,
            input.credential,
          );
          ok = result === "ok";
          reason = result === "clone_suspected" ? "clone" : "passkey";
          break;
        }
      }
      if (ok) {
        s.status = "consumed";
        await this.ctx.storage.put("s", s);
        return {
          kind: "ok",
          userId: s.userId,
          guardKey: s.guardKey,
          firstFactor: s.firstFactor ?? "password",
        };
      }
      s.failures += 1;
      if (s.failures >= LOGIN_CHALLENGE_MAX_FAILURES) {
        s.status = "dead";
        await this.ctx.storage.put("s", s);
        return { kind: "dead" };
      }
      await this.ctx.storage.put("s", s);
      return { kind: "wrong", remaining: LOGIN_CHALLENGE_MAX_FAILURES - s.failures, reason };
    });
  }

  /**
   * Passkey-first sign-in (no account known yet): this instance holds one WebAuthn challenge until it
   * is taken once or expires. Its own storage key, so it never mixes with a phased-login challenge.
   */
  async openPasskeyFirst(expiresAt: number): Promise<void> {
    await this.ctx.storage.put("passkey_first", { expiresAt });
    await this.ctx.storage.setAlarm(expiresAt);
  }

  /** Takes the passkey-first challenge: true exactly once, before its expiry. */
  async takePasskeyFirst(): Promise<boolean> {
    return this.lock.run(async () => {
      const p = await this.ctx.storage.get<{ expiresAt: number }>("passkey_first");
      if (!p) return false;
      await this.ctx.storage.delete("passkey_first");
      return Date.now() < p.expiresAt;
    });
  }

  /** Test and diagnostics view of the counter. */
  async failures(): Promise<number> {
    return (await this.ctx.storage.get<ChallengeState>("s"))?.failures ?? 0;
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
