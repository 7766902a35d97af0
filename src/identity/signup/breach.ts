import type { Logger } from "../../lib/log";
import { hex } from "../core/crypto";
import { countMetric } from "../probes/metrics";

/** Answers whether a password appears in public breach corpora; null when the corpus is unreachable. */
export interface BreachChecker {
  isBreached(password: string): Promise<boolean | null>;
}

/** How long the range API may take before the check counts as unavailable (signup goes on). */
export const BREACH_CHECK_TIMEOUT_MS = 3000;

/**
 * The k-anonymity range API (Have I Been Pwned format): only the first 5 hex characters of the SHA-1
 * leave the server; the response lists `SUFFIX:COUNT` lines, padded with zero-count decoys.
 */
export class RangeApiBreachChecker implements BreachChecker {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = BREACH_CHECK_TIMEOUT_MS,
  ) {}

  async isBreached(password: string): Promise<boolean | null> {
    const digest = hex(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(password))).toUpperCase();
    const prefix = digest.slice(0, 5);
    const suffix = digest.slice(5);
    try {
      const res = await fetch(`${this.baseUrl}${prefix}`, {
        headers: { "Add-Padding": "true", "User-Agent": "site-platform-identity" },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) return null;
      const body = await res.text();
      for (const line of body.split(/\r?\n/)) {
        const [s, count] = line.trim().split(":");
        if (s?.toUpperCase() === suffix && Number(count) > 0) return true;
      }
      return false;
    } catch {
      return null;
    }
  }
}

export type BreachOutcome = "clean" | "breached" | "unavailable";

export async function checkBreach(
  checker: BreachChecker,
  password: string,
  log: Logger,
): Promise<BreachOutcome> {
  const result = await checker.isBreached(password);
  const outcome: BreachOutcome = result === null ? "unavailable" : result ? "breached" : "clean";
  countMetric("auth_password_breach_checks_total", "Password breach checks by outcome", { outcome });
  if (outcome === "unavailable") {
    log.warn("breach_check_unavailable");
  }
  return outcome;
}
