export declare const SSO_DEMO_DOMAIN: string;
export declare const SSO_DEMO_PORT: number;
export declare function startSsoDemo(options: {
  identityDb: { prepare(sql: string): unknown };
  ssoSecretKey: string;
  callbacks: string[];
  portOffset: number;
}): Promise<unknown>;
