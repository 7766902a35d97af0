import { refuse } from "./violation";

export type JsonObject = Record<string, unknown>;

/** Keys written with a dot: the same grammar as image paths (`settings.favicon_kit.apple-touch-icon`). */
const PLAIN_KEY = /^[A-Za-z0-9_-]+$/;

/** Deeper documents are refused: settings nest a handful of levels, and recursion must stay bounded. */
export const MAX_SETTINGS_DEPTH = 64;

export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `settings.logo` + `light` -> `settings.logo.light`; odd keys are quoted so a path is never ambiguous. */
export function fieldPath(parent: string, key: string): string {
  return PLAIN_KEY.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

/** Length in Unicode code points, so a limit of "200 characters" counts what a person sees as characters. */
export function charLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

export function isIntegerInRange(value: unknown, min: number, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
}

export function isNumberInRange(value: unknown, min: number, max: number): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= min && value <= max;
}

export function isOneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === "string" && (allowed as readonly string[]).includes(value);
}

export function isBlank(value: string): boolean {
  return value.trim().length === 0;
}

/** Text a person must fill in: a string, not only whitespace, of at most `max` characters. */
export function isRequiredText(value: unknown, max: number): value is string {
  return typeof value === "string" && !isBlank(value) && charLength(value) <= max;
}

/** Optional settings fields may be absent or null alike. */
export function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** Path of the first object key equal to `key` (any case) anywhere inside `value`, or null. */
export function findKeyDeep(value: unknown, key: string, path: string): string | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findKeyDeep(value[i], key, indexPath(path, i));
      if (found) return found;
    }
    return null;
  }
  if (!isPlainObject(value)) return null;
  for (const [k, v] of Object.entries(value)) {
    const childPath = fieldPath(path, k);
    if (k.toLowerCase() === key) return childPath;
    const found = findKeyDeep(v, key, childPath);
    if (found) return found;
  }
  return null;
}

/**
 * Copies a JSON document, refusing anything JSON cannot carry (undefined, functions, NaN, class
 * instances), a `__proto__` key (prototype pollution when the copy is assigned into) and nesting
 * deeper than MAX_SETTINGS_DEPTH. A key whose value is `undefined` is dropped, as JSON.stringify
 * would. The validators then work on the copy, so the caller's object is
 * never mutated.
 */
export function cloneJsonDocument(value: unknown, path: string, depth = 0): unknown {
  if (depth > MAX_SETTINGS_DEPTH)
    refuse("BAD_REQUEST", path, `nesting deeper than ${MAX_SETTINGS_DEPTH} levels`);
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) refuse("BAD_REQUEST", path, "must be a finite JSON number");
    return value;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) refuse("BAD_REQUEST", indexPath(path, i), "must be a JSON value");
      out.push(cloneJsonDocument(value[i], indexPath(path, i), depth + 1));
    }
    return out;
  }
  if (isPlainObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      if (k === "__proto__") refuse("BAD_REQUEST", fieldPath(path, k), "key not allowed");
      out[k] = cloneJsonDocument(v, fieldPath(path, k), depth + 1);
    }
    return out;
  }
  return refuse("BAD_REQUEST", path, "must be a JSON value");
}
