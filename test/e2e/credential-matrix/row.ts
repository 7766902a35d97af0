/**
 * One row of the credential matrix (issue 31; `src/lib/credentials.ts`): for one (credential kind, ending
 * event) pair of a service's registry, make the credential, show that it works, perform the event through
 * the public API (through the gateway, as a client would), and show that it no longer works.
 */
export interface MatrixRow<T = unknown> {
  /** Makes the credential and whatever it needs (its own user, org, site, key: never shared state). */
  arrange(): Promise<T>;
  /** Uses the credential as its holder would; resolves the HTTP status of that use. */
  use(made: T): Promise<number>;
  /** Performs the ending event through the public API, as the person or operator who ends it would. */
  end(made: T): Promise<void>;
  /** The status `use` answers before the event (200 unless said). */
  works?: number;
  /** The status `use` answers after the event: what the operation answers for a missing credential. */
  ended: number;
  /**
   * Runs by itself, not beside the other rows (which run concurrently): for a row whose credential another
   * row's event would end too (identity's hourly run erases every account whose deletion is due).
   */
  alone?: boolean;
}

/** A service's rows, keyed by `pairKey(kind, event)` (`"identity.passkey × password_reset"`). */
export type MatrixRows = Record<string, MatrixRow<never>>;

/**
 * Types one row while keeping its `made` type (rows of different types share one `MatrixRows`); the type is
 * what `arrange` makes, so `use` and `end` may take a narrower view of it.
 */
export function row<T>(
  r: { arrange(): Promise<T> } & Omit<MatrixRow<NoInfer<T>>, "arrange">,
): MatrixRow<never> {
  return r as unknown as MatrixRow<never>;
}
