import type { Env } from "../core/worker-env";
import type { OutboundMessage } from "./messages";
import { insertOutboxMessage } from "./outbox-store";

/** Sends e-mail. Throws when the message could not be handed to the provider. */
export interface Mailer {
  send(message: OutboundMessage): Promise<void>;
}

/** Sends SMS. Throws when the message could not be handed to the provider. */
export interface SmsSender {
  send(message: OutboundMessage): Promise<void>;
}

export class DeliveryError extends Error {}

/** Development and tests: messages are stored in D1 and read back through the dev outbox route. */
export class OutboxAdapter implements Mailer, SmsSender {
  constructor(
    private readonly db: D1Database,
    private readonly channel: "email" | "sms",
  ) {}

  async send(m: OutboundMessage): Promise<void> {
    await insertOutboxMessage(this.db, this.channel, m);
  }
}

/** Production: a JSON HTTP provider (POST {from,to,subject,text} with a Bearer token). */
export class HttpProviderAdapter implements Mailer, SmsSender {
  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly from: string,
  ) {}

  async send(m: OutboundMessage): Promise<void> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ from: this.from, to: m.to, subject: m.subject, text: m.body }),
        signal: AbortSignal.timeout(5000),
      });
    } catch (err) {
      throw new DeliveryError(`provider unreachable: ${(err as Error).message}`);
    }
    if (!res.ok) throw new DeliveryError(`provider answered ${res.status}`);
  }
}

/** No provider configured: every send fails, so callers fail closed (503/502) instead of pretending. */
class UnconfiguredAdapter implements Mailer, SmsSender {
  async send(): Promise<void> {
    throw new DeliveryError("no provider configured");
  }
}

export function smsEnabled(env: Env): boolean {
  return env.SMS_ENABLED === "true";
}

export function devOutboxEnabled(env: Env): boolean {
  return env.DEV_OUTBOX === "true";
}

export function createMailer(env: Env): Mailer {
  if (devOutboxEnabled(env)) return new OutboxAdapter(env.DB, "email");
  if (env.MAIL_PROVIDER_URL) {
    return new HttpProviderAdapter(
      env.MAIL_PROVIDER_URL,
      env.MAIL_PROVIDER_TOKEN ?? "",
      env.MAIL_FROM ?? "no-reply@site-platform",
    );
  }
  return new UnconfiguredAdapter();
}

export function createSmsSender(env: Env): SmsSender {
  if (devOutboxEnabled(env)) return new OutboxAdapter(env.DB, "sms");
  if (env.SMS_PROVIDER_URL)
    return new HttpProviderAdapter(env.SMS_PROVIDER_URL, env.SMS_PROVIDER_TOKEN ?? "", "");
  return new UnconfiguredAdapter();
}
