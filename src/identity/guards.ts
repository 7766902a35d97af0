import type { ApiError } from "../lib/problem";
import { RATE_LIMITS, type RateLimitName } from "./config";
import { sha256Hex } from "./crypto";
import { fail, problem } from "./errors";
import type { Env } from "./worker-env";

/** Counts one hit on a quota; throws 429 RATE_LIMITED with Retry-After when the quota is spent. */
export async function enforceRateLimit(env: Env, name: RateLimitName, key: string): Promise<void> {
  const [limit, window] = RATE_LIMITS[name];
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`${name}:${key}`));
  const decision = await stub.hit(limit, window);
  if (!decision.allowed) {
    fail("RATE_LIMITED", {
      detail: "Too many requests; retry later.",
      headers: { "Retry-After": String(decision.retryAfter) },
    });
  }
}

async function guardStub(env: Env, address: string) {
  return env.ACCOUNT_GUARD.get(env.ACCOUNT_GUARD.idFromName(await sha256Hex(`guard|${address}`)));
}

export function lockedError(retryAfter: number): ApiError {
  return problem("ACCOUNT_LOCKED", {
    detail: "Too many failed attempts; try again later, or sign in with a magic link or reset the password.",
    headers: { "Retry-After": String(retryAfter) },
  });
}

/** Reserves one password attempt for the address (known or not); 423 while the address is locked. */
export async function reservePasswordAttempt(env: Env, address: string): Promise<void> {
  const decision = await (await guardStub(env, address)).attempt();
  if (decision.locked) throw lockedError(decision.retryAfter);
}

export async function clearPasswordGuard(env: Env, address: string): Promise<void> {
  await (await guardStub(env, address)).succeed();
}
