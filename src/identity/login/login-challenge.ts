import { DurableObject } from "cloudflare:workers";
import { LOGIN_CHALLENGE_MAX_FAILURES } from "../core/config";
import { timingSafeEqual } from "../core/crypto";
import { Mutex } from "../core/mutex";
import type { Env } from "../core/worker-env";
import { checkTotp, consumeRecoveryCode } from "../factors/factors";
import { type PasskeyAssertionResult, verifyPasskeyAssertion } from "../factors/passkeys";
import { type GuardKey, guardStub } from "./guards";

export type LoginMethod = "totp" | "email" | "sms" | "passkey" | "recovery_code";

export interface ChallengeInit {
  userId: string;
  /** The password guard the first factor counted on: cleared when the challenge succeeds. */
  guardKey: GuardKey;
  /**
   * The guard every second-factor proof of this challenge reserves a slot on and confirms its wrong codes
   * on (the password's own guard, or `mailbox|<user>` after a magic link); cleared on success.
   */
  factorGuardKey: GuardKey;
  /** What opened the challenge: a proven password, or a magic-link code (then e-mail is never a method). */
  firstFactor: "password" | "magic_link";
  methods: LoginMethod[];
  expiresAt: number;
  /**
   * The account's credential epoch when the first factor was proven. A password change or reset (or an
   * owner's undo) raises it in D1 in the same batch as the change; the challenge then can neither send
   * a code nor open a session (the session INSERT is conditional on it): phased-login.ts, sessions.ts.
   */
  epoch: number;
}

interface ChallengeState extends ChallengeInit {
  failures: number;
  status: "open" | "consumed" | "dead";
  sentCode?: { method: "email" | "sms"; codeHash: string; expiresAt: number };
  passkeyChallenge?: string;
}

export type VerifyOutcome =
  | {
      kind: "ok";
      userId: string;
      guardKeys: GuardKey[];
      firstFactor: ChallengeInit["firstFactor"];
      epoch: number;
    }
  | { kind: "locked" | "busy"; retryAfter: number }
  | { kind: "invalid" }
  | { kind: "method_not_available" }
  | { kind: "ceremony_invalid" }
  | {
      kind: "wrong";
      remaining: number;
      reason: "code" | "code_already_used" | "passkey" | "clone";
      userId: string;
    }
  /** `userId` only when this attempt was the wrong one that killed the challenge. */
  | { kind: "dead"; userId?: string };

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
  async describe(): Promise<{
    userId: string;
    methods: LoginMethod[];
    expiresAt: number;
    epoch: number;
  } | null> {
    const s = await this.state();
    if (s?.status !== "open") return null;
    return { userId: s.userId, methods: s.methods, expiresAt: s.expiresAt, epoch: s.epoch ?? 0 };
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

      const guardKey = s.factorGuardKey ?? s.guardKey;
      const guard = await guardStub(this.env, guardKey);
      const reservation = await guard.reserve();
      if (reservation.kind !== "granted") return reservation;
      let result: { ok: boolean; reason: "code" | "code_already_used" | "passkey" | "clone" } | undefined;
      try {
        result = await this.evaluate(s, input);
      } finally {
        if (result && !result.ok) await guard.fail(reservation.lease);
        else await guard.release(reservation.lease);
      }
      if (result.ok) {
        s.status = "consumed";
        await this.ctx.storage.put("s", s);
        return {
          kind: "ok",
          userId: s.userId,
          guardKeys: [...new Set([s.guardKey, guardKey])],
          firstFactor: s.firstFactor ?? "password",
          epoch: s.epoch ?? 0,
        };
      }
      s.failures += 1;
      if (s.failures >= LOGIN_CHALLENGE_MAX_FAILURES) {
        s.status = "dead";
        await this.ctx.storage.put("s", s);
        return { kind: "dead", userId: s.userId };
      }
      await this.ctx.storage.put("s", s);
      return {
        kind: "wrong",
        remaining: LOGIN_CHALLENGE_MAX_FAILURES - s.failures,
        reason: result.reason,
        userId: s.userId,
      };
    });
  }

  /** Evaluates one second-factor proof against the challenge (under the lock and a guard reservation). */
  private async evaluate(
    s: ChallengeState,
    input: VerifyInput,
  ): Promise<{ ok: boolean; reason: "code" | "code_already_used" | "passkey" | "clone" }> {
    switch (input.method) {
      case "totp": {
        const verdict = await checkTotp(this.env, s.userId, input.code, "confirmed");
        return { ok: verdict === "ok", reason: verdict === "used" ? "code_already_used" : "code" };
      }
      case "recovery_code":
        return { ok: await consumeRecoveryCode(this.env, s.userId, input.code), reason: "code" };
      case "email":
      case "sms": {
        const sent = s.sentCode;
        const ok =
          sent?.method === input.method &&
          Date.now() < sent.expiresAt &&
          timingSafeEqual(sent.codeHash, input.codeHash);
        return { ok, reason: "code" };
      }
      case "passkey": {
        const verdict: PasskeyAssertionResult = await verifyPasskeyAssertion(
          this.env,
          s.userId,
          s.passkeyChallenge!,
          input.credential,
        );
        return { ok: verdict === "ok", reason: verdict === "clone_suspected" ? "clone" : "passkey" };
      }
    }
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
