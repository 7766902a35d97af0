/** Optional id parameters (filters, form fields): absent or empty is no filter, anything else a ULID or UUID. */
import { parseId } from "../../lib/ids";
import { fail } from "../errors";

export function optionalId(name: string, value: string | undefined | null): string | null {
  if (value === undefined || value === null || value === "") return null;
  const id = parseId(value);
  if (!id) fail("BAD_REQUEST", `${name} must be a ULID or UUID.`);
  return id;
}
