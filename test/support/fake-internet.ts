/**
 * The outside world as tests see it: every outbound `fetch` of every worker lands here (Miniflare's
 * `outboundService`, run in Node by the vitest config), so no test ever touches the network. Each
 * external dependency answers on its own reserved `.test` host, deterministically from the request;
 * anything else gets 599 so an accidental real call fails loudly.
 */
import { registerContentFakes } from "./fakes/content.ts";
import { registerIdentityFakes } from "./fakes/identity.ts";
import { registerOauthClientFakes } from "./fakes/oauth-clients.ts";
import { registerOidcFakes } from "./fakes/oidc.ts";
import { registerSitesFakes } from "./fakes/sites.ts";

type Handler = (request: Request, url: URL) => Promise<Response> | Response;

const handlers: Record<string, Handler> = {};

/** Registers the fake for one host. */
export function fakeHost(host: string, handler: Handler) {
  handlers[host] = handler;
}

export async function fakeInternet(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const handler = handlers[url.hostname];
  if (!handler) return new Response(`fake internet: no host ${url.hostname}`, { status: 599 });
  return handler(request, url);
}

registerIdentityFakes();
registerContentFakes();
registerSitesFakes();
registerOidcFakes();
registerOauthClientFakes();
