/**
 * Sign-up, e-mail confirmation, phased sign-in (password, then TOTP, e-mail code, passkey or recovery
 * code; trust this device), magic link and password reset pages.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import type { PageAsset } from "./assets";

export const SIGN_IN_ASSETS: Record<string, PageAsset> = {};

export function registerSignInPages(_app: OpenAPIHono<AppEnv>) {}
