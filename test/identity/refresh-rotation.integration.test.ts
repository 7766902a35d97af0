import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/identity/core/worker-env";
import { rotateRefreshToken } from "../../src/identity/login/refresh";
import { signupVerified } from "../support/identity-helpers";

const e = env as unknown as Env;
const client = { ip: "192.0.2.10", userAgent: "test" };

describe("rotateRefreshToken", () => {
  it("rotates a live token into a new session token of the same account", async () => {
    const { session } = await signupVerified();
    const next = await rotateRefreshToken(e, session.refresh_token, client);
    expect(next).toMatchObject({ userId: session.user.id });
    expect(next!.refreshToken).not.toBe(session.refresh_token);
  });

  it("means sign in again (null) for a missing, empty, malformed or unknown token", async () => {
    const unknown = `rt1.01ARZ3NDEKTSV4RRFFQ69G5FAV.${"A".repeat(43)}`;
    for (const token of [undefined, "", "garbage", unknown]) {
      expect(await rotateRefreshToken(e, token, client)).toBeNull();
    }
  });

  it("means sign in again (null) for a token already rotated, and for its successor (reuse revokes)", async () => {
    const { session } = await signupVerified();
    const next = await rotateRefreshToken(e, session.refresh_token, client);
    expect(await rotateRefreshToken(e, session.refresh_token, client)).toBeNull();
    expect(await rotateRefreshToken(e, next!.refreshToken, client)).toBeNull();
  });
});
