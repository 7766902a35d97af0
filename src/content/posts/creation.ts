/**
 * `POST /v1/posts` with its `Idempotency-Key`: the same key and body replay the original 201; of
 * concurrent requests with one key exactly one creates the post.
 */

import type { Env, Services } from "../core/bindings";
import {
  beginIdempotent,
  canonicalJson,
  parseIdempotencyKey,
  type StoredResponse,
} from "../core/idempotency-store";
import type { KeyContext } from "../keys/key-context";
import { sha256Base64url } from "../keys/key-hash";
import type { CreatePostInput } from "./input";
import { createPost } from "./service";

/** A post needs an author: keys created before keys recorded their authorship context cannot write posts. */
export { requireAuthorshipContext } from "../authors/personas";

/** Creates the post once per `Idempotency-Key` (header value, if sent); `replayed` when answered from the record. */
export async function createPostOnce(
  env: Env,
  services: Services,
  key: KeyContext,
  input: CreatePostInput,
  idempotencyHeader: string | undefined,
): Promise<{ stored: StoredResponse; replayed: boolean }> {
  const idempotencyKey = parseIdempotencyKey(idempotencyHeader);
  if (!idempotencyKey) return { stored: await createPost(env, services, key, input), replayed: false };
  const hash = await sha256Base64url(canonicalJson(input));
  const start = await beginIdempotent(env, key.keyId, idempotencyKey, hash);
  if (start.kind === "replay") return { stored: start.response, replayed: true };
  let stored: StoredResponse;
  try {
    stored = await createPost(env, services, key, input, start.recordStatement);
  } catch (error) {
    await start.abort();
    throw error;
  }
  return { stored, replayed: false };
}
