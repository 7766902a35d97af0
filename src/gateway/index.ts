import { Hono } from "hono";
const app = new Hono<{ Bindings: GatewayEnv }>();
app.get("/health", (c) => c.json({ status: "ok" }));
app.all("/api/v1/auth/*", (c) => c.env.IDENTITY.fetch(c.req.raw));
export default app;
