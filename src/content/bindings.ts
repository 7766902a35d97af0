/** The content worker's bindings (generated ContentEnv) plus the secrets it reads. */
import type { KeyContext } from "./auth/key-context";

export type Env = ContentEnv & {
  API_KEY_PEPPER: string;
  CURSOR_SECRET: string;
  /** "true" only in local development and tests: outbound effects are recorded instead of sent. */
  DEV_OUTBOX?: string;
};

export interface AppVariables {
  auth: KeyContext;
  /** Headers added to whatever response this request ends with (CORS, RateLimit). */
  responseHeaders: Record<string, string>;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };
