/**
 * Amazon SES v2 SendEmail (https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_SendEmail.html):
 * `POST https://email.{region}.amazonaws.com/v2/email/outbound-emails`, JSON `{FromEmailAddress,
 * Destination: {ToAddresses}, Content: {Simple: {Subject, Body: {Text, Html}}}, EmailTags}`, signed with
 * Signature Version 4 (service `ses`) by an IAM access key allowed `ses:SendEmail`.
 */
import { amzDate, sha256Hex, signV4 } from "./sigv4";
import type { ProviderRequest, RenderedMessage } from "./transport";

export interface SesConfig {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  from: string;
  /** Override of `https://email.{region}.amazonaws.com` (a test host). */
  endpoint?: string;
  /** The signing instant (tests); default now. */
  now?: () => Date;
}

export function sesUrl(config: Pick<SesConfig, "region" | "endpoint">): string {
  const base = (config.endpoint || `https://email.${config.region}.amazonaws.com`).replace(/\/+$/, "");
  return `${base}/v2/email/outbound-emails`;
}

/** SES tag values allow only ASCII letters, digits, `_`, `-`, `.` and `@`. */
const tagValue = (v: string) => v.replace(/[^A-Za-z0-9_.@-]/g, "_");

export async function sesRequest(config: SesConfig, m: RenderedMessage): Promise<ProviderRequest> {
  const utf8 = (Data: string) => ({ Data, Charset: "UTF-8" });
  const body = JSON.stringify({
    FromEmailAddress: config.from,
    Destination: { ToAddresses: [m.to] },
    Content: { Simple: { Subject: utf8(m.subject), Body: { Text: utf8(m.text), Html: utf8(m.html) } } },
    EmailTags: [{ Name: "purpose", Value: tagValue(m.purpose) }],
  });
  const url = sesUrl(config);
  const headers = {
    "content-type": "application/json",
    "x-amz-content-sha256": await sha256Hex(body),
    "x-amz-date": amzDate((config.now ?? (() => new Date()))()),
  };
  const { authorization } = await signV4({
    method: "POST",
    url,
    headers,
    body,
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    region: config.region,
    service: "ses",
    amzDate: headers["x-amz-date"],
  });
  return { method: "POST", url, headers: { ...headers, authorization }, body };
}
