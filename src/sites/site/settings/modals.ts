import { isUlid } from "../../../lib/ids";
import type { SettingsErrorName } from "../../errors";
import {
  charLength,
  fieldPath,
  findKeyDeep,
  indexPath,
  isIntegerInRange,
  isOneOf,
  isPlainObject,
  isPresent,
  isRequiredText,
  type JsonObject,
} from "./json";
import {
  AUDIENCE_DEVICES,
  MODAL,
  MODAL_AUDIENCE,
  MODAL_CONTENT,
  MODAL_CONTENT_KINDS,
  MODAL_FREQUENCY,
  MODAL_PAGES,
  MODAL_RULES,
  MODAL_TRIGGER,
  MODAL_TRIGGER_KINDS,
  type TaggedNode,
  variantKeys,
} from "./schema";
import { refuse } from "./violation";

export const MODALS_MAX = 10;
export const MODAL_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const MODAL_TITLE_MAX = 120;
export const MODAL_TEXT_MAX = 2000;
export { AUDIENCE_DEVICES, MODAL_CONTENT_KINDS, MODAL_TRIGGER_KINDS };
export const TRIGGER_SECONDS_RANGE = [1, 300] as const;
export const TRIGGER_PERCENT_RANGE = [1, 100] as const;
export const PAGE_PATTERNS_MAX = 20;
export const PAGE_PATTERN_MAX_LENGTH = 200;
export const PAGE_PATTERN_MAX_STARS = 5;
export const FREQUENCY_MAX_SHOWS_RANGE = [1, 50] as const;
export const FREQUENCY_DAYS_RANGE = [1, 365] as const;

/** Keys of the contract at each level, from the declared schema; anything else is MODALS_UNKNOWN_FIELD. */
const MODAL_KEYS = Object.keys(MODAL.fields);
const byKind = <K extends string>(node: TaggedNode, kinds: readonly K[]) =>
  Object.fromEntries(kinds.map((kind) => [kind, variantKeys(node, kind)])) as Record<K, string[]>;
const CONTENT_KEYS_BY_KIND = byKind(MODAL_CONTENT, MODAL_CONTENT_KINDS);
const RULES_KEYS = Object.keys(MODAL_RULES.fields);
const TRIGGER_KEYS_BY_KIND = byKind(MODAL_TRIGGER, MODAL_TRIGGER_KINDS);
const PAGES_KEYS = Object.keys(MODAL_PAGES.fields);
const FREQUENCY_KEYS = Object.keys(MODAL_FREQUENCY.fields);
const AUDIENCE_KEYS = Object.keys(MODAL_AUDIENCE.fields);

const CONTROL_CHARACTER = /\p{Cc}/u;

function refuseUnknownKeys(value: JsonObject, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) refuse("MODALS_UNKNOWN_FIELD", fieldPath(path, key), "unknown field");
  }
}

/**
 * A `kind`-tagged object: keys that no kind has are refused first, then the kind, then keys of another
 * kind (`{kind: "delay", percent: 50}` is an unknown field, never silently ignored).
 */
function checkKind<K extends string>(
  value: JsonObject,
  kinds: readonly K[],
  keysByKind: Record<K, string[]>,
  unknownKindCode: SettingsErrorName,
  path: string,
): K {
  refuseUnknownKeys(value, Object.values<string[]>(keysByKind).flat(), path);
  const kind = value.kind;
  if (!isOneOf(kind, kinds)) refuse(unknownKindCode, `${path}.kind`, `must be one of ${kinds.join(", ")}`);
  refuseUnknownKeys(value, keysByKind[kind], path);
  return kind;
}

function checkContent(content: unknown, adUnitIds: Set<string>, path: string): void {
  if (!isPlainObject(content)) refuse("MODALS_INVALID", path, "content is required and must be an object");
  const kind = checkKind(
    content,
    MODAL_CONTENT_KINDS,
    CONTENT_KEYS_BY_KIND,
    "MODALS_CONTENT_UNKNOWN_KIND",
    path,
  );
  if (kind === "form") {
    const formId = content.form_id;
    if (!isPresent(formId)) refuse("MODALS_INVALID", `${path}.form_id`, "required for kind form");
    // Forms are addressed by ULID only; a UUID (36 characters) is refused, not translated.
    if (typeof formId !== "string" || formId.length !== 26 || !isUlid(formId)) {
      refuse("MODALS_CONTENT_INVALID_ULID", `${path}.form_id`, "must be a 26-character ULID");
    }
  } else if (kind === "ad") {
    const unitId = content.unit_id;
    if (!isPresent(unitId)) refuse("MODALS_INVALID", `${path}.unit_id`, "required for kind ad");
    if (typeof unitId !== "string" || !adUnitIds.has(unitId)) {
      refuse("MODALS_CONTENT_REF_UNKNOWN", `${path}.unit_id`, "matches no settings.ads.units[].id");
    }
  } else {
    const text = content.text;
    if (!isRequiredText(text, MODAL_TEXT_MAX)) {
      refuse("MODALS_INVALID", `${path}.text`, `required plain text of 1..${MODAL_TEXT_MAX} characters`);
    }
  }
}

function checkTrigger(trigger: unknown, path: string): void {
  if (!isPresent(trigger)) return;
  if (!isPlainObject(trigger)) refuse("MODALS_TRIGGER_INVALID", path, "must be an object");
  const kind = checkKind(
    trigger,
    MODAL_TRIGGER_KINDS,
    TRIGGER_KEYS_BY_KIND,
    "MODALS_TRIGGER_UNKNOWN_KIND",
    path,
  );
  if (kind === "delay" && !isIntegerInRange(trigger.seconds, ...TRIGGER_SECONDS_RANGE)) {
    refuse("MODALS_TRIGGER_INVALID", `${path}.seconds`, "must be an integer from 1 to 300");
  }
  if (kind === "scroll" && !isIntegerInRange(trigger.percent, ...TRIGGER_PERCENT_RANGE)) {
    refuse("MODALS_TRIGGER_INVALID", `${path}.percent`, "must be an integer from 1 to 100");
  }
}

function patternProblem(pattern: unknown): string | null {
  if (typeof pattern !== "string") return "must be a string";
  const length = charLength(pattern);
  if (length < 1 || length > PAGE_PATTERN_MAX_LENGTH)
    return `must be 1..${PAGE_PATTERN_MAX_LENGTH} characters`;
  if (!pattern.startsWith("/")) return "must start with /";
  // Path traversal and absolute URLs would let a pattern match outside the site's own pages.
  if (pattern.includes("..")) return "must not contain ..";
  if (pattern.includes("\\")) return "must not contain a backslash";
  if (pattern.includes("://")) return "must not contain ://";
  if (CONTROL_CHARACTER.test(pattern)) return "must not contain control characters";
  if (pattern.split("*").length - 1 > PAGE_PATTERN_MAX_STARS)
    return `at most ${PAGE_PATTERN_MAX_STARS} * per pattern`;
  return null;
}

function checkPages(pages: unknown, path: string): void {
  if (!isPresent(pages)) return;
  if (!isPlainObject(pages)) refuse("MODALS_PAGES_INVALID", path, "must be an object {include, exclude}");
  refuseUnknownKeys(pages, PAGES_KEYS, path);
  for (const list of PAGES_KEYS) {
    const patterns = pages[list];
    const listPath = `${path}.${list}`;
    if (!isPresent(patterns)) continue;
    if (!Array.isArray(patterns))
      refuse("MODALS_PAGES_INVALID", listPath, "must be an array of path patterns");
    if (patterns.length > PAGE_PATTERNS_MAX) {
      refuse("MODALS_PAGES_INVALID", listPath, `at most ${PAGE_PATTERNS_MAX} patterns`);
    }
    patterns.forEach((pattern, i) => {
      const problem = patternProblem(pattern);
      if (problem) refuse("MODALS_PAGES_INVALID", indexPath(listPath, i), problem);
    });
  }
}

function checkFrequency(frequency: unknown, path: string): void {
  if (!isPresent(frequency)) return;
  if (!isPlainObject(frequency))
    refuse("MODALS_FREQUENCY_INVALID", path, "must be an object {max_shows, per, days}");
  refuseUnknownKeys(frequency, FREQUENCY_KEYS, path);
  if (!isIntegerInRange(frequency.max_shows, ...FREQUENCY_MAX_SHOWS_RANGE)) {
    refuse("MODALS_FREQUENCY_INVALID", `${path}.max_shows`, "must be an integer from 1 to 50");
  }
  if (isPresent(frequency.per) && frequency.per !== "days") {
    refuse("MODALS_FREQUENCY_INVALID", `${path}.per`, "the only legal value is days");
  }
  if (!isIntegerInRange(frequency.days, ...FREQUENCY_DAYS_RANGE)) {
    refuse("MODALS_FREQUENCY_INVALID", `${path}.days`, "must be an integer from 1 to 365");
  }
}

function checkAudience(audience: unknown, path: string): void {
  if (!isPresent(audience)) return;
  if (!isPlainObject(audience)) refuse("MODALS_AUDIENCE_INVALID", path, "must be an object");
  refuseUnknownKeys(audience, AUDIENCE_KEYS, path);
  const devices = audience.devices;
  if (isPresent(devices)) {
    const valid =
      Array.isArray(devices) &&
      devices.length > 0 &&
      devices.every((device) => isOneOf(device, AUDIENCE_DEVICES)) &&
      new Set(devices).size === devices.length;
    if (!valid) {
      refuse(
        "MODALS_AUDIENCE_INVALID",
        `${path}.devices`,
        "must be a non-empty list of desktop and/or mobile",
      );
    }
  }
  const newOnly = audience.new_visitors_only;
  if (isPresent(newOnly) && typeof newOnly !== "boolean") {
    refuse("MODALS_AUDIENCE_INVALID", `${path}.new_visitors_only`, "must be a boolean");
  }
}

function checkRules(rules: unknown, path: string): void {
  if (!isPresent(rules)) return;
  if (!isPlainObject(rules)) refuse("MODALS_INVALID", path, "must be an object");
  refuseUnknownKeys(rules, RULES_KEYS, path);
  checkTrigger(rules.trigger, `${path}.trigger`);
  checkPages(rules.pages, `${path}.pages`);
  checkFrequency(rules.frequency, `${path}.frequency`);
  checkAudience(rules.audience, `${path}.audience`);
}

/**
 * Modals family. Order: array shape, count, then each modal in index order: object, key `html` at
 * any depth, unknown modal keys, `id` (format, then uniqueness), `title`, `enabled`, `content`,
 * `rules` (trigger, pages, frequency, audience). Inside each object: unknown keys first, then kind,
 * then the kind's fields.
 */
export function checkModals(settings: JsonObject, adUnitIds: Set<string>): void {
  const modals = settings.modals;
  if (!isPresent(modals)) return;
  if (!Array.isArray(modals))
    refuse("MODALS_INVALID_SHAPE", "settings.modals", "must be an array of objects");
  if (modals.length > MODALS_MAX)
    refuse("MODALS_TOO_MANY", "settings.modals", `at most ${MODALS_MAX} modals`);
  const ids = new Set<string>();
  modals.forEach((modal, i) => {
    const path = indexPath("settings.modals", i);
    if (!isPlainObject(modal)) refuse("MODALS_INVALID_SHAPE", path, "must be an object");
    const markup = findKeyDeep(modal, "html", path);
    if (markup)
      refuse(
        "MODALS_MARKUP_FORBIDDEN",
        markup,
        "markup is not allowed in modals; content.text is plain text",
      );
    refuseUnknownKeys(modal, MODAL_KEYS, path);
    const id = modal.id;
    if (typeof id !== "string" || !MODAL_ID.test(id)) {
      refuse("MODALS_INVALID", `${path}.id`, "required: 1..64 letters, digits, '_' or '-'");
    }
    if (ids.has(id)) refuse("MODALS_INVALID", `${path}.id`, "duplicate modal id");
    ids.add(id);
    const title = modal.title;
    if (!isRequiredText(title, MODAL_TITLE_MAX)) {
      refuse("MODALS_INVALID", `${path}.title`, `required text of 1..${MODAL_TITLE_MAX} characters`);
    }
    if (isPresent(modal.enabled) && typeof modal.enabled !== "boolean") {
      refuse("MODALS_INVALID", `${path}.enabled`, "must be a boolean");
    }
    checkContent(modal.content, adUnitIds, `${path}.content`);
    checkRules(modal.rules, `${path}.rules`);
  });
}
