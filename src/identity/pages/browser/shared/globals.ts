/**
 * What the page scripts share at run time, by `window`: `Auth` (common.ts, its own asset `common.js`,
 * loaded before every page's script) and `SignIn` (flow.ts, bundled into each sign-in side page).
 * Types only: a page script imports this file for its types, never common.ts's code.
 */

/** A problem+json body, as far as the scripts read it. */
export interface Problem {
  code?: string;
  title?: string;
  detail?: string;
  details?: Record<string, unknown>;
}

/** An answer of the JSON API; `body` is null when it was empty. */
export interface ApiResult<T extends object = object> {
  status: number;
  ok: boolean;
  body: (T & Problem) | null;
}

export interface ApiOptions {
  /** The bearer token; false sends none; absent sends the session's. */
  token?: string | false | null;
  headers?: Record<string, string> | undefined;
}

/** A form's fields by name (the pages' forms have no file inputs). */
export type FormValues = Record<string, string>;

/** The WebAuthn options as the server sends them (base64url strings where the browser wants bytes). */
interface CredentialDescriptorJSON {
  id: string;
  type: PublicKeyCredentialType;
  transports?: AuthenticatorTransport[];
}

export interface CreationOptionsJSON
  extends Omit<PublicKeyCredentialCreationOptions, "challenge" | "user" | "excludeCredentials"> {
  challenge: string;
  user: Omit<PublicKeyCredentialUserEntity, "id"> & { id: string };
  excludeCredentials?: CredentialDescriptorJSON[];
}

export interface RequestOptionsJSON
  extends Omit<PublicKeyCredentialRequestOptions, "challenge" | "allowCredentials"> {
  challenge: string;
  allowCredentials?: CredentialDescriptorJSON[];
}

export interface PasskeyCodec {
  creationOptions(json: CreationOptionsJSON): PublicKeyCredentialCreationOptions;
  requestOptions(json: RequestOptionsJSON): PublicKeyCredentialRequestOptions;
  toJSON(credential: PublicKeyCredential): Record<string, unknown>;
}

export interface AuthApi {
  api<T extends object = object>(
    method: string,
    path: string,
    body?: unknown,
    options?: ApiOptions,
  ): Promise<ApiResult<T>>;
  message(result: ApiResult | null | undefined): string;
  announce(text: string, kind?: "ok" | "error"): void;
  form(el: HTMLFormElement | null, handler: (data: FormValues, form: HTMLFormElement) => unknown): void;
  setSession(body: { access_token?: string } | null | undefined): void;
  clearSession(): void;
  accessToken(): Promise<string | null>;
  forgetToken(value: string | null): void;
  passkey: PasskeyCodec;
  params(): URLSearchParams;
}

/** What the second step answers or the sign-in pages hand to the flow. */
export interface SignedInBody {
  access_token?: string;
  trusted_device?: boolean;
}

export interface SecondFactorStart {
  challenge: string;
  methods?: string[];
}

export interface SignInApi {
  nextPath(): string;
  withNext(path: string, extra?: Record<string, string>): string;
  signedIn(body: SignedInBody | null, note?: string): void;
  startSecondFactor(opened: SecondFactorStart, options?: { restart?: () => void }): void;
}

declare global {
  interface Window {
    Auth: AuthApi;
    SignIn: SignInApi;
  }
}
