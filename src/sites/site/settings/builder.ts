import { SLUG_RE } from "../../../lib/slug";
import { LANGUAGE_RE } from "../../health/domains";
import {
  charLength,
  indexPath,
  isIntegerInRange,
  isOneOf,
  isPlainObject,
  isPresent,
  type JsonObject,
} from "./json";
import { refuse } from "./violation";

/**
 * The home page builder: `settings.home.blocks`, an ordered list of blocks the renderer lays out.
 * `html` blocks carry the site's own markup (content: a theme never takes them); `posts` blocks list
 * posts chosen by `source.filter` (`language`, `category_slugs`, `tag_slugs`) up to `source.limit`.
 * Keys not named here pass through, as elsewhere in settings.
 */
export const BLOCK_TYPES = ["hero", "posts", "html", "newsletter", "divider"] as const;
export const MAX_BLOCKS = 40;
export const BLOCK_COLUMNS_RANGE = [1, 6] as const;
export const SOURCE_LIMIT_RANGE = [1, 50] as const;
export const MAX_FILTER_SLUGS = 20;
export const MAX_HTML_BLOCK_CHARS = 65_536;
/** A block's visual variant: a render token, lower-case like a slug. */
const VARIANT = /^[a-z0-9][a-z0-9-]{0,63}$/;

function checkFilter(filter: unknown, path: string): void {
  if (!isPresent(filter)) return;
  if (!isPlainObject(filter)) refuse("BUILDER_INVALID_SOURCE", path, "must be an object");
  const language = filter.language;
  if (isPresent(language) && (typeof language !== "string" || !LANGUAGE_RE.test(language))) {
    refuse("BUILDER_INVALID_SOURCE", `${path}.language`, "must be a language tag such as en or pt-BR");
  }
  for (const key of ["category_slugs", "tag_slugs"] as const) {
    const slugs = filter[key];
    if (!isPresent(slugs)) continue;
    const ok =
      Array.isArray(slugs) &&
      slugs.length <= MAX_FILTER_SLUGS &&
      slugs.every((s) => typeof s === "string" && SLUG_RE.test(s));
    if (!ok) refuse("BUILDER_INVALID_SOURCE", `${path}.${key}`, `must be up to ${MAX_FILTER_SLUGS} slugs`);
  }
}

function checkSource(source: unknown, path: string): void {
  if (!isPresent(source)) return;
  if (!isPlainObject(source)) refuse("BUILDER_INVALID_SOURCE", path, "must be an object");
  checkFilter(source.filter, `${path}.filter`);
  if (isPresent(source.limit) && !isIntegerInRange(source.limit, ...SOURCE_LIMIT_RANGE)) {
    refuse("BUILDER_INVALID_SOURCE", `${path}.limit`, "must be an integer from 1 to 50");
  }
}

function checkBlock(block: unknown, path: string): void {
  if (!isPlainObject(block)) refuse("BUILDER_INVALID_SHAPE", path, "must be an object");
  if (!isOneOf(block.type, BLOCK_TYPES)) {
    refuse("BUILDER_UNKNOWN_BLOCK", `${path}.type`, `must be one of ${BLOCK_TYPES.join(", ")}`);
  }
  const variant = block.variant;
  if (isPresent(variant) && (typeof variant !== "string" || !VARIANT.test(variant))) {
    refuse("BUILDER_INVALID_BLOCK", `${path}.variant`, "must be 1..64 of a-z, 0-9 or '-'");
  }
  if (isPresent(block.columns) && !isIntegerInRange(block.columns, ...BLOCK_COLUMNS_RANGE)) {
    refuse("BUILDER_INVALID_BLOCK", `${path}.columns`, "must be an integer from 1 to 6");
  }
  if (block.type === "html") {
    const html = block.html;
    if (typeof html !== "string" || charLength(html) > MAX_HTML_BLOCK_CHARS) {
      refuse(
        "BUILDER_INVALID_BLOCK",
        `${path}.html`,
        `must be a string of at most ${MAX_HTML_BLOCK_CHARS} characters`,
      );
    }
  }
  if (block.type === "posts") checkSource(block.source, `${path}.source`);
}

/** Builder family (`BUILDER_*`): `home` an object, `home.blocks` an array of at most 40 known blocks. */
export function checkBuilder(settings: JsonObject): void {
  const home = settings.home;
  if (!isPresent(home)) return;
  if (!isPlainObject(home)) refuse("BUILDER_INVALID_SHAPE", "settings.home", "must be an object");
  const blocks = home.blocks;
  if (!isPresent(blocks)) return;
  if (!Array.isArray(blocks)) refuse("BUILDER_INVALID_SHAPE", "settings.home.blocks", "must be an array");
  if (blocks.length > MAX_BLOCKS) {
    refuse("BUILDER_TOO_MANY_BLOCKS", "settings.home.blocks", `at most ${MAX_BLOCKS} blocks`);
  }
  blocks.forEach((block, i) => {
    checkBlock(block, indexPath("settings.home.blocks", i));
  });
}
