import type { SettingsErrorName } from "../../errors";

/** One refused rule: `code` is the spec's error code, `path` the full field path from `settings`. */
export interface SettingsViolation {
  code: SettingsErrorName;
  path: string;
  message: string;
}

export type SettingsValidation =
  | { ok: true; settings: Record<string, unknown> }
  | { ok: false; violation: SettingsViolation };

/**
 * Thrown by the rule modules to stop at the first violation; `validateSettings` turns it into the
 * `{ ok: false }` answer. Never escapes this folder.
 */
export class SettingsViolationError extends Error {
  readonly violation: SettingsViolation;

  constructor(violation: SettingsViolation) {
    super(violation.message);
    this.violation = violation;
  }
}

/** Stops validation with `code`; the message always starts with the full field path. */
export function refuse(code: SettingsErrorName, path: string, detail: string): never {
  throw new SettingsViolationError({ code, path, message: `${path}: ${detail}` });
}
