export interface Demo {
  user: { id: string; email: string; password: string; totp_secret: string };
  org: { id: string; slug: string };
  site: { id: string; slug: string };
  keys: { secret: string; public: string };
}
export declare const DEMO_STATE_FILE: string;
export declare const DEMO_ORIGINS: string[];
export declare function createDemo(
  base: string,
): Promise<{ demo: Demo; session: { access_token: string; refresh_token: string } }>;
/** The developer's own session, printed beside the keys (never the seed's stored one). */
export interface DemoSession {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}
export declare function seedDemo(
  base: string,
  options?: { stateFile?: string; fresh?: boolean; rotateKeys?: boolean },
): Promise<Demo & { session: DemoSession }>;
export declare function envLines(demo: Demo & { session: DemoSession }): string;
export declare function call(
  base: string,
  method: string,
  path: string,
  opts?: { body?: unknown; token?: string; headers?: Record<string, string> },
): Promise<unknown>;
