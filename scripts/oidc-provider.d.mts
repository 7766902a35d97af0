export interface OidcAccountInput {
  email: string;
  password?: string;
  email_verified?: boolean;
  name?: string;
  sub?: string;
  amr?: string[];
  acr?: string;
}
export interface OidcAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
  password: string | null;
  amr: string[];
}
export interface StartedOidcProvider {
  issuer: string;
  url: string;
  port: number;
  signingKey: Record<string, unknown> & { kid: string };
  addAccount(input: OidcAccountInput): OidcAccount;
  accountBySub(sub: string): OidcAccount | undefined;
  close(): Promise<void>;
}
export declare function providerSigningKey(kid?: string): Record<string, unknown> & { kid: string };
export declare function startOidcProvider(options: {
  issuer: string;
  clients: Record<string, unknown>[];
  host?: string;
  port?: number;
  autoLogin?: boolean;
  /** Test harness only: handles a request first when it returns true. */
  control?: (
    req: import("node:http").IncomingMessage,
    res: import("node:http").ServerResponse,
    url: URL,
    tools: { addAccount(input: OidcAccountInput): OidcAccount },
  ) => boolean | Promise<boolean>;
  /** Let the process exit while it listens (tests). */
  unref?: boolean;
  accounts?: OidcAccountInput[];
  signingKey?: Record<string, unknown> & { kid: string };
}): Promise<StartedOidcProvider>;
