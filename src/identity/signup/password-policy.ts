import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../core/config";
import type { Services } from "../core/context";
import type { Env } from "../core/worker-env";
import { fail } from "../errors";
import { checkBreach } from "./breach";

/**
 * The password policy of signup, reset, change and SSO registration: at least 12 characters (code
 * points), at most 256, and absent from breach corpora. An unreachable corpus is accepted (fail-open,
 * counted) unless BREACH_CHECK_FAIL_CLOSED is "true".
 */
export async function enforcePasswordPolicy(
  env: Env,
  services: Pick<Services, "breach" | "log">,
  password: string,
): Promise<void> {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) {
    fail("PASSWORD_TOO_WEAK", `The password must have at least ${PASSWORD_MIN_LENGTH} characters.`);
  }
  if (length > PASSWORD_MAX_LENGTH) {
    fail("BAD_REQUEST", `The password must have at most ${PASSWORD_MAX_LENGTH} characters.`);
  }
  const outcome = await checkBreach(services.breach, password, services.log);
  if (outcome === "breached") {
    fail("PASSWORD_BREACHED", "This password appears in public breach corpora.");
  }
  if (outcome === "unavailable" && env.BREACH_CHECK_FAIL_CLOSED === "true") {
    fail(
      "PASSWORD_CHECK_UNAVAILABLE",
      "The password could not be checked against breach corpora; retry later.",
    );
  }
}
