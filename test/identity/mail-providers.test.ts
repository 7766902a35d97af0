/**
 * Contract tests of the e-mail and SMS adapters (issue 36): each builds the request its provider
 * documents, compared with a recorded fixture of that documentation (test/fixtures/providers/), with a
 * capturing fetcher instead of the network. The SES signer is checked against AWS's worked example.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/identity/core/worker-env";
import { mailTransport, smsEnabled, smsTransport } from "../../src/identity/messaging/messaging";
import { type PostmarkConfig, postmarkRequest } from "../../src/identity/messaging/providers/postmark";
import { type ResendConfig, resendRequest } from "../../src/identity/messaging/providers/resend";
import { type SesConfig, sesRequest } from "../../src/identity/messaging/providers/ses";
import { signV4 } from "../../src/identity/messaging/providers/sigv4";
import {
  DeliveryError,
  type Fetcher,
  providerTransport,
  type RenderedMessage,
} from "../../src/identity/messaging/providers/transport";
import { type TwilioConfig, twilioRequest } from "../../src/identity/messaging/providers/twilio";
import postmarkFixture from "../fixtures/providers/postmark.json";
import resendFixture from "../fixtures/providers/resend.json";
import sesFixture from "../fixtures/providers/ses.json";
import sigv4Fixture from "../fixtures/providers/sigv4-s3-get-object.json";
import twilioFixture from "../fixtures/providers/twilio.json";

const FROM = "Site Platform <no-reply@mail.example.com>";

/** Each provider as identity sends through it: its request builder, posted by the shared transport. */
const resend = (c: ResendConfig, f: Fetcher) => providerTransport("resend", (m) => resendRequest(c, m), f);
const postmark = (c: PostmarkConfig, f: Fetcher) =>
  providerTransport("postmark", (m) => postmarkRequest(c, m), f);
const ses = (c: SesConfig, f: Fetcher) => providerTransport("ses", (m) => sesRequest(c, m), f);
const twilio = (c: TwilioConfig, f: Fetcher) => providerTransport("twilio", (m) => twilioRequest(c, m), f);

const message: RenderedMessage = {
  to: "ana@example.com",
  purpose: "login_mfa",
  locale: "en",
  subject: "Your sign-in code",
  text: "text body",
  html: "<p>html body</p>",
  code: "123456",
};

interface Captured {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A fetcher that records the request and answers `status`. */
function capturing(status = 200) {
  const seen: Captured[] = [];
  const fetcher = async (request: Request) => {
    seen.push({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: new TextDecoder().decode(await request.arrayBuffer()),
    });
    return new Response("{}", { status });
  };
  return { seen, fetcher };
}

describe("e-mail adapters send the request their provider documents", () => {
  it("Resend: POST /emails, Bearer key, JSON from/to[]/subject/html/text", async () => {
    const { seen, fetcher } = capturing();
    await resend({ apiKey: "re_test_123456789", from: FROM }, fetcher).send(message);
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect({
      method: req!.method,
      url: req!.url,
      headers: req!.headers,
      body: JSON.parse(req!.body),
    }).toEqual(resendFixture);
  });

  it("Postmark: POST /email, X-Postmark-Server-Token, JSON From/To/Subject/HtmlBody/TextBody/MessageStream", async () => {
    const { seen, fetcher } = capturing();
    await postmark({ serverToken: "00000000-0000-4000-8000-000000000000", from: FROM }, fetcher).send(
      message,
    );
    const [req] = seen;
    expect({
      method: req!.method,
      url: req!.url,
      headers: req!.headers,
      body: JSON.parse(req!.body),
    }).toEqual(postmarkFixture);
  });

  it("Amazon SES v2: POST /v2/email/outbound-emails, SigV4 (service ses) over the JSON body", async () => {
    const { seen, fetcher } = capturing();
    const config = {
      region: "us-east-1",
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      from: FROM,
      now: () => new Date("2026-11-28T12:00:00.000Z"),
    };
    await ses(config, fetcher).send(message);
    const [req] = seen;
    expect(req!.method).toBe(sesFixture.method);
    expect(req!.url).toBe(sesFixture.url);
    expect(JSON.parse(req!.body)).toEqual(sesFixture.body);
    expect(req!.headers).toMatchObject(sesFixture.headers);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(req!.body));
    const bodyHash = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(req!.headers["x-amz-content-sha256"]).toBe(bodyHash);
    const auth = req!.headers.authorization!;
    expect(auth).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${sesFixture.credentialScope.replace(/\//g, "\\/")}, SignedHeaders=${sesFixture.signedHeaders}, Signature=[0-9a-f]{64}$`,
      ),
    );
    // The signature is the one the documented algorithm gives for exactly these headers and body.
    const again = await signV4({
      method: "POST",
      url: req!.url,
      headers: {
        "content-type": req!.headers["content-type"]!,
        "x-amz-content-sha256": bodyHash,
        "x-amz-date": req!.headers["x-amz-date"]!,
      },
      body: req!.body,
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      region: "us-east-1",
      service: "ses",
      amzDate: "20261128T120000Z",
    });
    expect(auth).toBe(again.authorization);
  });

  it("the SigV4 signer reproduces AWS's worked example (canonical request, string to sign, signature)", async () => {
    const v = sigv4Fixture;
    const parts = await signV4({
      method: v.method,
      url: v.url,
      headers: v.headers,
      body: "",
      accessKeyId: v.accessKeyId,
      secretAccessKey: v.secretAccessKey,
      region: v.region,
      service: v.service,
      amzDate: v.headers["x-amz-date"],
    });
    expect(parts.canonicalRequest).toBe(v.canonicalRequest);
    expect(parts.stringToSign).toBe(v.stringToSign);
    expect(parts.signature).toBe(v.signature);
  });
});

describe("the SMS adapter sends Twilio's Messages request", () => {
  it("POST /2010-04-01/Accounts/{AccountSid}/Messages.json, Basic auth, form To/From/Body", async () => {
    const { seen, fetcher } = capturing(201);
    const sms = { ...message, to: "+5511987654321" };
    await twilio(
      {
        accountSid: "AC00000000000000000000000000000000",
        authToken: "twilio-auth-token",
        from: "+15005550006",
      },
      fetcher,
    ).send(sms);
    const [req] = seen;
    expect({
      method: req!.method,
      url: req!.url,
      headers: req!.headers,
      form: Object.fromEntries(new URLSearchParams(req!.body)),
    }).toEqual(twilioFixture);
  });

  it("a Messaging Service SID goes as MessagingServiceSid instead of From", async () => {
    const { seen, fetcher } = capturing(201);
    const service = `MG${"a".repeat(32)}`;
    await twilio({ accountSid: "AC1", authToken: "t", from: service }, fetcher).send(message);
    const form = new URLSearchParams(seen[0]!.body);
    expect(form.get("MessagingServiceSid")).toBe(service);
    expect(form.has("From")).toBe(false);
  });
});

describe("a provider's refusal or absence is a DeliveryError (the caller fails closed)", () => {
  it("a non-2xx answer and a network error both throw DeliveryError", async () => {
    const refused = capturing(422);
    await expect(
      postmark({ serverToken: "x", from: FROM }, refused.fetcher).send(message),
    ).rejects.toBeInstanceOf(DeliveryError);
    const down = async () => {
      throw new TypeError("network down");
    };
    await expect(resend({ apiKey: "x", from: FROM }, down).send(message)).rejects.toBeInstanceOf(
      DeliveryError,
    );
  });
});

describe("configuration chooses the provider", () => {
  const base = env as unknown as Env;
  const withVars = (vars: Partial<Env>) => ({ ...base, DEV_OUTBOX: "false", ...vars }) as Env;

  it("MAIL_PROVIDER = resend | postmark | ses; nothing configured sends nothing", async () => {
    expect(mailTransport(withVars({ MAIL_PROVIDER: "resend" })).provider).toBe("resend");
    expect(mailTransport(withVars({ MAIL_PROVIDER: "postmark" })).provider).toBe("postmark");
    expect(
      mailTransport(withVars({ MAIL_PROVIDER: "ses", MAIL_PROVIDER_REGION: "eu-west-1" })).provider,
    ).toBe("ses");
    const none = mailTransport(withVars({ MAIL_PROVIDER: undefined, MAIL_PROVIDER_URL: undefined }));
    await expect(none.send(message)).rejects.toBeInstanceOf(DeliveryError);
  });

  it("SMS_PROVIDER = twilio; without one (and no dev outbox) SMS is disabled", () => {
    expect(smsTransport(withVars({ SMS_PROVIDER: "twilio" })).provider).toBe("twilio");
    expect(smsEnabled(withVars({ SMS_ENABLED: "true", SMS_PROVIDER: "twilio" }))).toBe(true);
    expect(
      smsEnabled(withVars({ SMS_ENABLED: "true", SMS_PROVIDER: undefined, SMS_PROVIDER_URL: undefined })),
    ).toBe(false);
    expect(smsEnabled({ ...base, DEV_OUTBOX: "true", SMS_ENABLED: "true" } as Env)).toBe(true);
  });
});
