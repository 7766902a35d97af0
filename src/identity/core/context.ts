import type { Context } from "hono";
import type { Mailer, SmsSender } from "../messaging/messaging";
import type { BreachChecker } from "../signup/breach";
import type { Env } from "./worker-env";

/** Outside-world adapters handed to handlers through the Hono context (built from env per request). */
export interface Services {
  mailer: Mailer;
  sms: SmsSender;
  breach: BreachChecker;
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

export function clientIp(c: Context): string {
  return c.req.header("cf-connecting-ip") ?? "unknown";
}
