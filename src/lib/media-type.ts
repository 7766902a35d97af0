/** `application/json` or a `+json` type, parameters ignored (the edge's body digest, hand-parsed JSON bodies). */
export function isJson(contentType: string | null | undefined): boolean {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}
