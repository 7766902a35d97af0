export { AccountGuard } from "./durable/account-guard";
export { LoginChallenge } from "./durable/login-challenge";
export { RateLimiter } from "./durable/rate-limiter";
export { RefreshFamily } from "./durable/refresh-family";
