/** BCP-47 language tags, in the canonical case used for storage and comparison (e.g. `pt-BR`, `zh-Hant-TW`). */
const TAG_RE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

export function canonicalLanguage(tag: string): string | null {
  if (tag.length > 35 || !TAG_RE.test(tag)) return null;
  const [primary, ...rest] = tag.split("-");
  const parts = [primary!.toLowerCase()];
  for (const part of rest) {
    if (part.length === 2 && /^[A-Za-z]{2}$/.test(part)) parts.push(part.toUpperCase());
    else if (part.length === 4 && /^[A-Za-z]{4}$/.test(part))
      parts.push(part[0]!.toUpperCase() + part.slice(1).toLowerCase());
    else parts.push(part.toLowerCase());
  }
  return parts.join("-");
}
