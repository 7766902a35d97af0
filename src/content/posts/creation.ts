/**
 * `POST /v1/posts` with its `Idempotency-Key`: the same key and body replay the original 201; of
 * concurrent requests with one key exactly one creates the post.
 *
 * Storage hops of the common case: the key's fresh lookup (middleware), ONE call of the key's object (the
 * write quota and, with an Idempotency-Key, the reservation: `admitWrite`), the post's batch. With an
 * Idempotency-Key the D1 record is read before that call (a finished request replays from it). A
 * published post's event is an outbox row only when a webhook of the site subscribes to it, delivered
 * after the answer (`waitUntil`; the cron retries what it leaves); without one, nothing follows the answer.
 */
import { ApiError } from "../../lib/problem";
import { requireAuthorshipContext } from "../authors/personas";
import type { Env, Services } from "../core/bindings";
import {
  afterReservation,
  canonicalJson,
  type IdempotencyStart,
  parseIdempotencyKey,
  type RecordedResponse,
  recordedResponse,
  replayRecorded,
  type StoredResponse,
} from "../core/idempotency-store";
import { admitWrite, type KeyRequest } from "../keys/api-key";
import type { KeyContext } from "../keys/key-context";
import { sha256Base64url } from "../keys/key-hash";
import type { CreatePostInput } from "./input";
import { checkCreate } from "./roles";
import { createPost } from "./service";

/** What creating a post reads of its request and adds to its answer; the route builds it. */
export interface CreateRequest {
  /** The `Idempotency-Key` header, if sent. */
  readonly idempotencyKey: string | undefined;
  readonly addHeaders: KeyRequest["addHeaders"];
  /** Work that may finish after the answer (the request's `waitUntil`). */
  readonly after: (work: Promise<unknown>) => void;
}

interface Checked {
  input: CreatePostInput;
  idempotency: { idempotencyKey: string; requestHash: string } | null;
}

/**
 * Everything decided without storage, in the documented order: body (400), a person's role (403),
 * authorship (422), header (400).
 */
async function checkRequest(
  key: KeyContext,
  parse: () => Promise<CreatePostInput>,
  header: string | undefined,
): Promise<Checked> {
  const input = await parse();
  // A person's role: posts:write_own to create, posts:publish for any status but draft (roles.ts).
  checkCreate(key, input.status);
  // A post needs an author: a key created before keys recorded their authorship context cannot write one,
  // unless the post names its author. A person always writes under their display name (who made it).
  if (input.author_slug === undefined || input.author_slug === null || key.actor.kind === "person")
    requireAuthorshipContext(key);
  const idempotencyKey = parseIdempotencyKey(header);
  if (!idempotencyKey) return { input, idempotency: null };
  return { input, idempotency: { idempotencyKey, requestHash: await sha256Base64url(canonicalJson(input)) } };
}

/** The request's checks, a refusal kept (not thrown) until the quota is taken: 429 wins over 400 and 422. */
async function checked(...args: Parameters<typeof checkRequest>): Promise<Checked | ApiError> {
  try {
    return await checkRequest(...args);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

/**
 * Takes the write quota (every attempt spends a token, a refused body too, as before) and, for a request
 * that will run, reserves its Idempotency-Key in the same call, unless its D1 record already answers it.
 */
async function admit(
  env: Env,
  request: CreateRequest,
  key: KeyContext,
  checks: Checked | ApiError,
): Promise<{ input: CreatePostInput; start: IdempotencyStart | null }> {
  const idempotency = checks instanceof ApiError ? null : checks.idempotency;
  const recorded: RecordedResponse | null = idempotency
    ? await recordedResponse(env.DB, key.keyId, idempotency.idempotencyKey)
    : null;
  const reservation = await admitWrite(env, request, key.keyId, recorded ? null : idempotency);
  if (checks instanceof ApiError) throw checks;
  const { input } = checks;
  if (!idempotency) return { input, start: null };
  const { idempotencyKey, requestHash } = idempotency;
  if (recorded) return { input, start: replayRecorded(recorded, requestHash) };
  return {
    input,
    start: afterReservation(env, env.DB, key, idempotencyKey, requestHash, reservation!),
  };
}

/** Creates the post once per `Idempotency-Key` (header value, if sent); `replayed` when answered from the record. */
export async function createPostOnce(
  env: Env,
  services: Services,
  key: KeyContext,
  request: CreateRequest,
  parse: () => Promise<CreatePostInput>,
): Promise<{ stored: StoredResponse; replayed: boolean }> {
  const checks = await checked(key, parse, request.idempotencyKey);
  const { input, start } = await admit(env, request, key, checks);
  if (start?.kind === "replay") return { stored: start.response, replayed: true };
  // The outbox after the answer: the request's waitUntil.
  const create = () => createPost(env, services, key, input, start?.recordStatement, request.after);
  if (!start) return { stored: await create(), replayed: false };
  try {
    return { stored: await create(), replayed: false };
  } catch (error) {
    await start.abort();
    throw error;
  }
}
