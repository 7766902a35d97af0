/**
 * The outbound side of webhooks, through the platform's outbound guard (src/lib/safe-fetch.ts): HTTPS
 * only, and the URL's every resolved address must be public, checked again before every attempt (DNS
 * may change after registration). Redirects are never followed (a 3xx is a failed attempt, as the
 * Standard Webhooks spec recommends), so a receiver cannot bounce us to a private address. One deadline
 * covers DNS and the request; the answer's body is never read.
 */

import { dohResolver, type Resolver } from "../../lib/doh";
import { checkDestination, type GuardFailure, guardedFetch, type UrlPolicy } from "../../lib/safe-fetch";

export type AttemptOutcome =
  | { kind: "delivered"; status: number }
  | {
      kind: "failed";
      status: number | null;
      /** `http_<status>`, `timeout`, `network_error`, `dns_*`, `destination_not_public`, `invalid_url`... */
      error: string;
      /** False for answers that retrying cannot change: 410 Gone, a destination that is not public. */
      retryable: boolean;
      /** From a 429/503 `Retry-After`, in seconds. */
      retryAfterSeconds?: number;
    };

export type DestinationCheck = { ok: true; url: string } | { ok: false; reason: string; definitive: boolean };

export interface WebhookSender {
  /** Development only (DEV_OUTBOX=true, never deployed): http(s) receivers on localhost are allowed. */
  localReceivers?: boolean;
  /** The registration check of a URL: scheme, name, and every address it resolves to. */
  checkDestination(url: string): Promise<DestinationCheck>;
  send(url: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome>;
}

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;

/** `Retry-After` as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  if (/^\d{1,9}$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

function outcomeOf(status: number, headers: Headers): AttemptOutcome {
  if (status >= 200 && status <= 299) return { kind: "delivered", status };
  const after = status === 429 || status === 503 ? retryAfterSeconds(headers.get("retry-after")) : null;
  return {
    kind: "failed",
    status,
    error: `http_${status}`,
    retryable: status !== 410,
    ...(after !== null ? { retryAfterSeconds: after } : {}),
  };
}

/**
 * A plain-http receiver on this machine (`http://localhost`, 127.0.0.1, ::1): development only. An https URL
 * to a loopback address is still judged (and refused) like any other non-public destination.
 */
export function isLocalReceiver(url: URL): boolean {
  return url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname.toLowerCase());
}

/** The guard's failures as a delivery's `error` and whether retrying can change it. */
function failureReason(failure: GuardFailure): string {
  if (failure.reason === "non_public_host") return "destination_not_public";
  if (failure.reason === "forbidden_scheme") return "https_required";
  return failure.reason;
}

export function safeWebhookSender(config: {
  resolver: Resolver;
  timeoutMs?: number;
  fetcher?: typeof fetch;
  /** Development only: allow `isLocalReceiver` URLs (nothing else changes). */
  localReceivers?: boolean;
}): WebhookSender {
  // Webhook bodies carry the site's content and the signature: never in clear text.
  const policy: UrlPolicy = {
    schemes: ["https:"],
    ...(config.localReceivers === true ? { loopbackSchemes: ["http:"] } : {}),
  };
  const destination = {
    ...policy,
    resolver: config.resolver,
    timeoutMs: config.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
  };

  /** The registration check, within the same deadline as an attempt (a hung DNS server never hangs the request). */
  async function checkDestinationOf(raw: string): Promise<DestinationCheck> {
    const checked = await checkDestination(raw, destination);
    if ("ok" in checked) return checked;
    const reason =
      checked.reason === "forbidden_scheme"
        ? "https_required"
        : checked.reason === "timeout"
          ? "dns_timeout"
          : checked.reason;
    return { ok: false, reason, definitive: checked.kind === "rejected" };
  }

  async function send(raw: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    const res = await guardedFetch(
      raw,
      {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "site-platform-webhooks/1", ...headers },
        body,
      },
      {
        ...destination,
        redirects: "answer",
        body: "never",
        ...(config.fetcher ? { fetcher: config.fetcher } : {}),
      },
    );
    if (res.kind === "answer") return outcomeOf(res.status, res.headers);
    return { kind: "failed", status: null, error: failureReason(res), retryable: res.kind === "transient" };
  }

  return { checkDestination: checkDestinationOf, send, localReceivers: config.localReceivers === true };
}

export function webhookSenderFor(env: {
  DOH_URL: string;
  WEBHOOK_TIMEOUT_MS?: string;
  DEV_OUTBOX?: string;
}): WebhookSender {
  const timeout = Number(env.WEBHOOK_TIMEOUT_MS);
  return safeWebhookSender({
    resolver: dohResolver(env.DOH_URL),
    localReceivers: env.DEV_OUTBOX === "true",
    ...(Number.isFinite(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
  });
}
