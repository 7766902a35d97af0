import { DurableObject } from "cloudflare:workers";

export { AccountGuard } from "./durable/account-guard";
export { LoginChallenge } from "./durable/login-challenge";
export { RateLimiter } from "./durable/rate-limiter";
export { RefreshFamily } from "./durable/refresh-family";

/** Per-organization owner guard (members and transfers; not built yet). */
export class OrgOwnerGuard extends DurableObject<IdentityEnv> {}
