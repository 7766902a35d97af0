/**
 * OpenID client secrets at rest (src/lib/secret-box.ts, as content seals webhook secrets): sealed under
 * identity's own Worker secret `SSO_SECRET_KEY`, bound to the organization and configuration ids, so a
 * ciphertext moved onto another organization's row yields nothing.
 */
import { openSecret, type SecretBox, sealSecret } from "../../lib/secret-box";

const CLIENT_SECRETS: SecretBox = {
  secretName: "SSO_SECRET_KEY",
  label: "identity sso client secret box v1",
};

const boundTo = (at: { orgId: string; configId: string }) => `${at.orgId}\n${at.configId}`;

export function sealClientSecret(
  serverSecret: string | undefined,
  at: { orgId: string; configId: string },
  secret: string,
): Promise<string> {
  return sealSecret(CLIENT_SECRETS, serverSecret, boundTo(at), secret);
}

/** The secret, or throws when the stored form is not ours or was not sealed for this configuration. */
export function openClientSecret(
  serverSecret: string | undefined,
  at: { orgId: string; configId: string },
  stored: string,
): Promise<string> {
  return openSecret(CLIENT_SECRETS, serverSecret, boundTo(at), stored);
}
