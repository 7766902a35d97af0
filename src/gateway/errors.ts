/**
 * The gateway's error catalogue (ARCHITECTURE's edge contract): a session route without a verified
 * access token, a body over the edge cap, a path no service serves, and the redacted 500.
 */
import { CommonErrors, defineErrors, errorsOf, type Fail } from "../lib/problem";

export const GatewayErrors = defineErrors({
  BAD_REQUEST: CommonErrors.BAD_REQUEST.status,
  UNAUTHENTICATED: CommonErrors.UNAUTHENTICATED.status,
  TOKEN_EXPIRED: CommonErrors.TOKEN_EXPIRED.status,
  METHOD_NOT_ALLOWED: CommonErrors.METHOD_NOT_ALLOWED.status,
  NOT_FOUND: CommonErrors.NOT_FOUND.status,
  PAYLOAD_TOO_LARGE: CommonErrors.PAYLOAD_TOO_LARGE.status,
  UNSUPPORTED_MEDIA_TYPE: CommonErrors.UNSUPPORTED_MEDIA_TYPE.status,
  INTERNAL_ERROR: CommonErrors.INTERNAL_ERROR.status,
});

export type GatewayErrorName = keyof typeof GatewayErrors;

const errors = errorsOf(GatewayErrors);

/** Throws the catalogue's error `name`; `options` is the wire `detail` or the full problem options. */
export const fail: Fail<GatewayErrorName> = errors.fail;
