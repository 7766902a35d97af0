/**
 * The deploy refuses an unconfigured e-mail provider (issue 36): identity's settings must name one it
 * speaks (Resend, Postmark, SES with its region); a named SMS provider must be Twilio with its account and
 * sender. Every problem refuses the real deploy and its dry run alike (settingsProblems).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EXAMPLE_SETTINGS, mailProblems, settingsProblems } from "../../scripts/deploy-config.mjs";

/** The example settings with every example value made a real-looking one. */
function ready(): { workers: Record<string, { vars: Record<string, string> }> } {
  return JSON.parse(readFileSync(EXAMPLE_SETTINGS, "utf8").replaceAll("example.com", "platform.test"));
}

describe("identity's mail settings", () => {
  it("the example (a provider URL) passes; without any provider the deploy is refused", () => {
    expect(settingsProblems(ready())).toEqual([]);
    const none = ready();
    delete none.workers.identity!.vars.MAIL_PROVIDER_URL;
    expect(settingsProblems(none)).toEqual([
      "identity: no e-mail provider: vars.MAIL_PROVIDER is required (resend, postmark, ses)",
    ]);
  });

  it("names one identity speaks; SES needs its region", () => {
    expect(mailProblems({ MAIL_PROVIDER: "resend" })).toEqual([]);
    expect(mailProblems({ MAIL_PROVIDER: "postmark" })).toEqual([]);
    expect(mailProblems({ MAIL_PROVIDER: "ses", MAIL_PROVIDER_REGION: "sa-east-1" })).toEqual([]);
    expect(mailProblems({ MAIL_PROVIDER: "ses" })).toEqual([
      "identity: vars.MAIL_PROVIDER_REGION is required with MAIL_PROVIDER = ses",
    ]);
    expect(mailProblems({ MAIL_PROVIDER: "sendgrid" })).toEqual([
      "identity: MAIL_PROVIDER = sendgrid is not one of resend, postmark, ses",
    ]);
    const unknown = ready();
    unknown.workers.identity!.vars.MAIL_PROVIDER = "mailgun";
    expect(settingsProblems(unknown).join("\n")).toContain("MAIL_PROVIDER = mailgun is not one of");
  });

  it("SMS is optional, but a named provider must be Twilio with its account and sender", () => {
    expect(mailProblems({ MAIL_PROVIDER: "resend" })).toEqual([]);
    expect(mailProblems({ MAIL_PROVIDER: "resend", SMS_PROVIDER: "twilio" })).toEqual([
      "identity: vars.TWILIO_ACCOUNT_SID is required with SMS_PROVIDER = twilio",
      "identity: vars.SMS_FROM is required with SMS_PROVIDER = twilio",
    ]);
    expect(
      mailProblems({
        MAIL_PROVIDER: "resend",
        SMS_PROVIDER: "twilio",
        TWILIO_ACCOUNT_SID: "AC1",
        SMS_FROM: "+15005550006",
      }),
    ).toEqual([]);
    expect(mailProblems({ MAIL_PROVIDER: "resend", SMS_PROVIDER: "vonage" })).toEqual([
      "identity: SMS_PROVIDER = vonage is not one of twilio",
    ]);
  });
});
