import { DurableObject } from "cloudflare:workers";
export class ApiKeyGate extends DurableObject<ContentEnv> {}
