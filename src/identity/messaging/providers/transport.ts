/**
 * What a provider adapter hands over: one rendered message (subject, plain text and HTML from the
 * message kind's template, in the recipient's language) and the request it becomes. Each adapter builds
 * its provider's documented request as data (`ProviderRequest`), so the contract tests compare it with a
 * recorded fixture of that documentation without any network, and `postToProvider` sends it.
 */
import type { MessagePurpose } from "../messages";

/** A message as it leaves identity: rendered from its template. SMS uses `text` only. */
export interface RenderedMessage {
  to: string;
  purpose: MessagePurpose;
  locale: string;
  subject: string;
  text: string;
  html: string;
  code?: string;
  link?: string;
}

/** Hands one rendered message to a provider (or the outbox). Throws `DeliveryError` when it could not. */
export interface Transport {
  /** The provider a message goes to (`resend`, `twilio`, …); absent for the outbox and the unconfigured one. */
  readonly provider?: string;
  send(message: RenderedMessage): Promise<void>;
}

/** The HTTP request of one send, as the provider's documentation describes it. */
export interface ProviderRequest {
  method: "POST";
  url: string;
  headers: Record<string, string>;
  /** The exact body bytes: JSON text or an `application/x-www-form-urlencoded` string. */
  body: string;
}

export class DeliveryError extends Error {}

export type Fetcher = (request: Request) => Promise<Response>;

/** How long a provider may take before the send counts as failed (not retried by identity). */
export const PROVIDER_TIMEOUT_MS = 5000;

/**
 * Sends the request with `fetcher` (messaging.ts passes the runtime's fetch: the provider's URL is the
 * operator's configuration, never a user's): any 2xx is delivered; another status, a timeout or a network
 * error throws.
 */
export async function postToProvider(
  provider: string,
  req: ProviderRequest,
  fetcher: Fetcher,
): Promise<void> {
  let res: Response;
  try {
    res = await fetcher(
      new Request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      }),
    );
  } catch (err) {
    throw new DeliveryError(`${provider} unreachable: ${(err as Error).message}`);
  }
  // The body is not needed; release the connection.
  await res.body?.cancel();
  if (!res.ok) throw new DeliveryError(`${provider} answered ${res.status}`);
}

/**
 * A provider as a transport: each message becomes the provider's documented request (`build`, which SES
 * signs asynchronously) and is posted with `fetcher`.
 */
export function providerTransport(
  provider: string,
  build: (message: RenderedMessage) => ProviderRequest | Promise<ProviderRequest>,
  fetcher: Fetcher,
): Transport {
  return { provider, send: async (message) => postToProvider(provider, await build(message), fetcher) };
}
