/**
 * The outside world as tests see it: every outbound `fetch` of every worker lands here (Miniflare's
 * `outboundService`), so no test ever touches the network. Each external dependency answers on its own
 * reserved `.test` host; anything else is refused with 599 so an accidental real call fails loudly.
 */
type Handler = (request: Request, url: URL) => Promise<Response> | Response;

const handlers: Record<string, Handler> = {};

/** Registers the fake for one host (used by the per-service fake modules below). */
export function fakeHost(host: string, handler: Handler) {
  handlers[host] = handler;
}

export async function fakeInternet(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const handler = handlers[url.hostname];
  if (!handler) return new Response(`fake internet: no host ${url.hostname}`, { status: 599 });
  return handler(request, url);
}
