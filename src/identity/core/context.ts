import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { Logger } from "../../lib/log";
import type { Mailer, SmsSender } from "../messaging/messaging";
import type { BreachChecker } from "../signup/breach";
import type { Env } from "./worker-env";

/** The device cookie's name (login/devices.ts reads and checks it; the response layer sets it). */
export const DEVICE_COOKIE = "svc_device";

/**
 * What the business code may know of the request it serves, read once by the middleware that builds
 * the services (`requestFacts`): plain data, so business functions never see the Hono context.
 */
export interface RequestFacts {
  /** `cf-connecting-ip` ("unknown" when absent): rate limits, sessions' records, events' prefixes. */
  ip: string;
  /** The `User-Agent` header, or null. */
  userAgent: string | null;
  /** The raw `svc_device` cookie (checked by `knownDevice`; it is no credential by itself). */
  deviceCookie: string | undefined;
  /** Whether the request came over https (directly or through a proxy saying so): cookies' `Secure`. */
  https: boolean;
}

/**
 * Outside-world adapters and the request's facts, built once per request by the app's middleware
 * (`core/app.ts`) and handed to business functions as `(env, services, …)`, as content and sites do.
 */
export interface Services {
  mailer: Mailer;
  sms: SmsSender;
  breach: BreachChecker;
  /** The logger of the request the services were built for. */
  log: Logger;
  /** Work that outlives the answer (the request's `executionCtx.waitUntil`). */
  waitUntil: (work: Promise<unknown>) => void;
  request: RequestFacts;
}

export interface AuthContext {
  userId: string;
  sessionId: string;
}

export type AppEnv = {
  Bindings: Env;
  Variables: { services: Services; auth: AuthContext };
};

export type AppContext = Context<AppEnv>;

function clientIp(c: Context): string {
  return c.req.header("cf-connecting-ip") ?? "unknown";
}

/** Whether the request came over https (the URL's scheme, or `x-forwarded-proto` from a proxy). */
function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
}

/** The request's facts for the business code (see `RequestFacts`). */
export function requestFacts(c: Context): RequestFacts {
  return {
    ip: clientIp(c),
    userAgent: c.req.header("user-agent") ?? null,
    deviceCookie: getCookie(c, DEVICE_COOKIE),
    https: isHttps(c),
  };
}
