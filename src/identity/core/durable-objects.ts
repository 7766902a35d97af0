export { AccountGuard } from "../login/account-guard";
export { LoginChallenge } from "../login/login-challenge";
export { RefreshFamily } from "../login/refresh-family";
export { RateLimiter } from "./rate-limiter";
