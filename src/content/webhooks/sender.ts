/**
 * The outbound side of webhooks, through the same SSRF rules as image ingest
 * (`checkPublicDestination`): the URL's every resolved address must be public, checked again before
 * every attempt (DNS may change after registration). Redirects are never followed (`redirect: "manual"`;
 * a 3xx is a failed attempt, as the Standard Webhooks spec recommends), so a receiver cannot bounce us to
 * a private address. One deadline covers DNS and the request; the answer's body is never read.
 */

import { dohResolver, type Resolver } from "../media/ingest/resolver";
import { checkPublicDestination } from "../media/ingest/safe-fetch";

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

class Deadline extends Error {}

/** `Retry-After` as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  if (/^\d{1,9}$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

function outcomeOf(res: Response): AttemptOutcome {
  if (res.status >= 200 && res.status <= 299) return { kind: "delivered", status: res.status };
  const after =
    res.status === 429 || res.status === 503 ? retryAfterSeconds(res.headers.get("retry-after")) : null;
  return {
    kind: "failed",
    status: res.status,
    error: `http_${res.status}`,
    retryable: res.status !== 410,
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

export function safeWebhookSender(config: {
  resolver: Resolver;
  timeoutMs?: number;
  fetcher?: typeof fetch;
  /** Development only: allow `isLocalReceiver` URLs (nothing else changes). */
  localReceivers?: boolean;
}): WebhookSender {
  const fetcher = config.fetcher ?? ((input, init) => fetch(input, init));
  const timeoutMs = config.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;

  async function destination(raw: string): Promise<DestinationCheck> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, reason: "invalid_url", definitive: true };
    }
    if (config.localReceivers === true && isLocalReceiver(url)) return { ok: true, url: url.toString() };
    // Webhook bodies carry the site's content and the signature: never in clear text.
    if (url.protocol !== "https:") return { ok: false, reason: "https_required", definitive: true };
    const checked = await checkPublicDestination(url.toString(), config.resolver);
    if ("ok" in checked) return { ok: true, url: checked.url.toString() };
    return { ok: false, reason: checked.reason, definitive: checked.kind === "rejected" };
  }

  /** The registration check, within the same deadline as an attempt (a hung DNS server never hangs the request). */
  async function checkDestination(raw: string): Promise<DestinationCheck> {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const expired = new Promise<DestinationCheck>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, reason: "dns_timeout", definitive: false }), timeoutMs);
    });
    try {
      return await Promise.race([destination(raw), expired]);
    } finally {
      if (timer !== null) clearTimeout(timer);
    }
  }

  async function send(raw: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    const abort = new AbortController();
    let expire: () => void = () => {};
    const deadline = new Promise<never>((_, reject) => {
      expire = () => {
        abort.abort(new Deadline());
        reject(new Deadline());
      };
    });
    deadline.catch(() => {});
    const timer = setTimeout(() => expire(), timeoutMs);
    try {
      const checked = await Promise.race([destination(raw), deadline]);
      if (!checked.ok) {
        const reason = checked.reason === "non_public_host" ? "destination_not_public" : checked.reason;
        return { kind: "failed", status: null, error: reason, retryable: !checked.definitive };
      }
      const res = await Promise.race([
        fetcher(checked.url, {
          method: "POST",
          redirect: "manual",
          signal: abort.signal,
          headers: {
            "content-type": "application/json",
            "user-agent": "site-platform-webhooks/1",
            ...headers,
          },
          body,
        }),
        deadline,
      ]);
      res.body?.cancel().catch(() => {});
      return outcomeOf(res);
    } catch (err) {
      if (err instanceof Deadline || abort.signal.aborted) {
        return { kind: "failed", status: null, error: "timeout", retryable: true };
      }
      return { kind: "failed", status: null, error: "network_error", retryable: true };
    } finally {
      clearTimeout(timer);
    }
  }

  return { checkDestination, send, localReceivers: config.localReceivers === true };
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
