/**
 * AWS Signature Version 4 (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html)
 * with WebCrypto: the canonical request (method, URI, query, the signed headers lower-cased and sorted,
 * the payload's SHA-256), the string to sign over the credential scope, and the HMAC chain of the secret
 * over date, region, service and `aws4_request`. Checked against the example of AWS's documentation
 * (test/identity/mail-providers.test.ts).
 */

const encoder = new TextEncoder();

function hex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256Hex(data: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", encoder.encode(data)));
}

async function hmac(key: ArrayBuffer | Uint8Array, data: string): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", k, encoder.encode(data));
}

/** RFC 3986 encoding as SigV4 wants it: every byte but unreserved characters percent-encoded. */
function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalQuery(params: URLSearchParams): string {
  return [...params.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
}

export interface SigV4Input {
  method: string;
  url: string;
  /** Every header to sign (`host` is added from the URL); values as sent. */
  headers: Record<string, string>;
  body: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
  /** `YYYYMMDD'T'HHMMSS'Z'`, the value of `x-amz-date`. */
  amzDate: string;
  /** The payload hash to sign; default the body's SHA-256 (S3 may send `UNSIGNED-PAYLOAD`). */
  payloadHash?: string;
}

export interface SigV4Parts {
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
  authorization: string;
}

export async function signV4(input: SigV4Input): Promise<SigV4Parts> {
  const url = new URL(input.url);
  const headers: Record<string, string> = { host: url.host };
  for (const [k, v] of Object.entries(input.headers)) headers[k.toLowerCase()] = v;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${headers[n]!.trim().replace(/\s+/g, " ")}\n`).join("");
  const signedHeaders = names.join(";");
  const path = url.pathname
    .split("/")
    .map((seg) => uriEncode(decodeURIComponent(seg)))
    .join("/");
  const payloadHash = input.payloadHash ?? (await sha256Hex(input.body));
  const canonicalRequest = [
    input.method,
    path || "/",
    canonicalQuery(url.searchParams),
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join("\n");
  const date = input.amzDate.slice(0, 8);
  const scope = `${date}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", input.amzDate, scope, await sha256Hex(canonicalRequest)].join(
    "\n",
  );
  let key = await hmac(encoder.encode(`AWS4${input.secretAccessKey}`), date);
  for (const part of [input.region, input.service, "aws4_request"]) key = await hmac(key, part);
  const signature = hex(await hmac(key, stringToSign));
  const authorization = `AWS4-HMAC-SHA256 Credential=${input.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { canonicalRequest, stringToSign, signature, authorization };
}

/** `x-amz-date` of an instant: `20130524T000000Z`. */
export function amzDate(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}
