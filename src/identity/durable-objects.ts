import { DurableObject } from "cloudflare:workers";
export class LoginChallenge extends DurableObject<IdentityEnv> {}
export class RefreshFamily extends DurableObject<IdentityEnv> {}
export class AccountGuard extends DurableObject<IdentityEnv> {}
export class RateLimiter extends DurableObject<IdentityEnv> {}
export class OrgOwnerGuard extends DurableObject<IdentityEnv> {}
