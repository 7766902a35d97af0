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
import type { Context } from "hono";
import { ApiError } from "../../lib/problem";
import { requireAuthorshipContext } from "../authors/personas";
import type { AppEnv } from "../core/bindings";
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
import { admitWrite } from "../keys/api-key";
import type { KeyContext } from "../keys/key-context";
import { sha256Base64url } from "../keys/key-hash";
import type { CreatePostInput } from "./input";
import { createPost } from "./service";

interface Checked {
  input: CreatePostInput;
  idempotency: { idempotencyKey: string; requestHash: string } | null;
}

/** Everything decided without storage, in the documented order: body (400), authorship (422), header (400). */
async function checkRequest(
  key: KeyContext,
  parse: () => Promise<CreatePostInput>,
  header: string | undefined,
): Promise<Checked> {
  const input = await parse();
  // A post needs an author: a key created before keys recorded their authorship context cannot write one,
  // unless the post names its author.
  if (input.author_slug === undefined || input.author_slug === null) requireAuthorshipContext(key);
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
  c: Context<AppEnv>,
  key: KeyContext,
  request: Checked | ApiError,
): Promise<{ input: CreatePostInput; start: IdempotencyStart | null }> {
  const idempotency = request instanceof ApiError ? null : request.idempotency;
  const recorded: RecordedResponse | null = idempotency
    ? await recordedResponse(c.env.DB, key.keyId, idempotency.idempotencyKey)
    : null;
  const reservation = await admitWrite(c, key.keyId, recorded ? null : idempotency);
  if (request instanceof ApiError) throw request;
  const { input } = request;
  if (!idempotency) return { input, start: null };
  const { idempotencyKey, requestHash } = idempotency;
  if (recorded) return { input, start: replayRecorded(recorded, requestHash) };
  return { input, start: afterReservation(c.env, key.keyId, idempotencyKey, requestHash, reservation!) };
}

/** Creates the post once per `Idempotency-Key` (header value, if sent); `replayed` when answered from the record. */
export async function createPostOnce(
  c: Context<AppEnv>,
  parse: () => Promise<CreatePostInput>,
): Promise<{ stored: StoredResponse; replayed: boolean }> {
  const key = c.get("auth");
  const request = await checked(key, parse, c.req.header("idempotency-key"));
  const { input, start } = await admit(c, key, request);
  if (start?.kind === "replay") return { stored: start.response, replayed: true };
  // The outbox after the answer: the request's waitUntil.
  const after = (work: Promise<unknown>) => c.executionCtx.waitUntil(work);
  const create = () => createPost(c.env, c.get("services"), key, input, start?.recordStatement, after);
  if (!start) return { stored: await create(), replayed: false };
  try {
    return { stored: await create(), replayed: false };
  } catch (error) {
    await start.abort();
    throw error;
  }
}
