import type { EdgeContext, IdentityRpc } from "../lib/rpc";
import { rpc } from "../lib/rpc";

/**
 * Memberships and session liveness come fresh from identity, cached in the isolate for at most
 * EDGE_CONTEXT_TTL seconds (≤ 30): a new membership works on the holder's next request after that,
 * a removed member or a revoked session loses access at the edge within a minute.
 */
const MAX_TTL_S = 30;
const MAX_ENTRIES = 10_000;
const cache = new Map<string, { value: EdgeContext | null; expires: number }>();

export async function loadEdgeContext(
  env: GatewayEnv,
  userId: string,
  sessionId: string,
): Promise<EdgeContext | null> {
  const key = `${userId}:${sessionId}`;
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.expires > now) return hit.value;
  const value = await rpc<IdentityRpc>(env.IDENTITY).edgeContext({ user_id: userId, session_id: sessionId });
  const ttl = Math.min(MAX_TTL_S, Math.max(0, Number(env.EDGE_CONTEXT_TTL) || MAX_TTL_S));
  if (cache.size >= MAX_ENTRIES) cache.clear();
  if (ttl > 0) cache.set(key, { value, expires: now + ttl * 1000 });
  return value;
}

/**
 * Forgets what the edge knows about a user. Called after the user's own successful writes to identity
 * (an organization created, an invitation accepted), so the change works on the very next request;
 * changes made by someone else reach the user when the entry expires (≤ 30 s).
 */
export function forgetEdgeContext(userId: string) {
  const prefix = `${userId}:`;
  for (const key of cache.keys()) if (key.startsWith(prefix)) cache.delete(key);
}
