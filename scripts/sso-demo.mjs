// The local single sign-on demo of `npm start` (development only, never deployed): a real OpenID
// provider (`oidc-provider`, scripts/oidc-provider.mjs) on http://localhost:8791 (+ PORT_OFFSET) with one demo user,
// configured as the demo organization's provider with the vouched domain `sso-demo.localhost` marked
// proved (offline there is no DNS to prove it by; the identity worker allows an http://localhost issuer
// only because .dev.vars sets DEV_SSO_LOCAL_ISSUERS, which a deploy refuses).
import { randomBytes, webcrypto } from "node:crypto";
import { startOidcProvider } from "./oidc-provider.mjs";

export const SSO_DEMO_DOMAIN = "sso-demo.localhost";
/** The provider's port at offset 0, beside the four Workers' 8787-8790; moved by the same offset. */
export const SSO_DEMO_PORT = 8791;
const CONFIG_ID = "dev-local-provider";
const encoder = new TextEncoder();

/** As src/identity/sso/secret-box.ts seals a client secret (HKDF-SHA-256 key, AES-256-GCM, bound ids). */
async function seal(serverSecret, orgId, configId, secret) {
  const material = await webcrypto.subtle.importKey("raw", encoder.encode(serverSecret), "HKDF", false, [
    "deriveKey",
  ]);
  const key = await webcrypto.subtle.deriveKey(
    {
      name: "HKDF",
      hash: "SHA-256",
      salt: new Uint8Array(0),
      info: encoder.encode("identity sso client secret box v1"),
    },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt"],
  );
  const iv = webcrypto.getRandomValues(new Uint8Array(12));
  const sealed = await webcrypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(`${orgId}\n${configId}`) },
    key,
    encoder.encode(secret),
  );
  return `v1.${Buffer.from(iv).toString("base64url")}.${Buffer.from(new Uint8Array(sealed)).toString("base64url")}`;
}

/**
 * Starts the provider and points the first organization (the demo tenant's) at it. `callbacks`: the
 * redirect URIs the identity worker may use (its ISSUER + /api/v1/auth/sso/callback). `portOffset`: the
 * offset of the platform's own ports (`npm start`'s PORT_OFFSET), so a second copy's provider does not
 * take the first one's port (bench/ports.mjs lists every port).
 */
export async function startSsoDemo({ identityDb, ssoSecretKey, callbacks, portOffset }) {
  if (!Number.isInteger(portOffset)) throw new TypeError("startSsoDemo: portOffset is required");
  const port = SSO_DEMO_PORT + portOffset;
  const org = await identityDb.prepare("SELECT id, slug FROM orgs ORDER BY created_at LIMIT 1").first();
  if (!org) return null;
  const issuer = `http://localhost:${port}`;
  const client = { client_id: "platform-demo", client_secret: randomBytes(24).toString("base64url") };
  const user = {
    email: `ana@${SSO_DEMO_DOMAIN}`,
    password: randomBytes(9).toString("base64url"),
    name: "Ana Demo",
  };
  const provider = await startOidcProvider({
    issuer,
    port,
    host: "127.0.0.1",
    clients: [{ ...client, redirect_uris: callbacks }],
    accounts: [user],
  });
  const now = new Date().toISOString();
  await identityDb.batch([
    identityDb
      .prepare(
        `INSERT INTO org_sso (org_id, config_id, issuer, client_id, client_secret_sealed, enforced, allow_passwords, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 0, 1, ?6, ?6)
         ON CONFLICT (org_id) DO UPDATE SET config_id = ?2, issuer = ?3, client_id = ?4, client_secret_sealed = ?5, updated_at = ?6`,
      )
      .bind(
        org.id,
        CONFIG_ID,
        issuer,
        client.client_id,
        await seal(ssoSecretKey, org.id, CONFIG_ID, client.client_secret),
        now,
      ),
    identityDb
      .prepare("DELETE FROM sso_domains WHERE domain = ? AND org_id <> ?")
      .bind(SSO_DEMO_DOMAIN, org.id),
    identityDb
      .prepare(
        "INSERT INTO sso_domains (org_id, domain, verified_at, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (org_id, domain) DO UPDATE SET verified_at = excluded.verified_at",
      )
      .bind(org.id, SSO_DEMO_DOMAIN, now, now),
  ]);
  return { provider, issuer, org, user };
}
