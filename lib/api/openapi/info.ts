import { MAX_ACTIVE_KEYS } from "@/lib/api/schemas/keys";
import { DEFAULTS, perWindow } from "./shared";

export const API_VERSION_INFO = {
  title: "Prepaid VPS API",
  version: "1.0.0",
  description: [
    "Prepaid KVM servers paid from a USD balance that crypto top-ups fund. No KYC: one call creates an account.",
    "",
    "**Errors.** Every error is JSON `{error, message}` (some codes add fields). Common codes: `invalid_json`,",
    "`invalid_body`, `unknown_field`, `request_aborted` (400, the body did not arrive in full), `unauthorized`",
    "(401), `not_found` (404, also for any unknown path under /api/v1, one that does not percent-decode, and ids",
    "that belong to another account), `method_not_allowed` (405, with `Allow`; also `TRACE` and other methods),",
    "`payload_too_large` (413), `unsupported_media_type` (415), `rate_limited` (429, with `Retry-After`),",
    "`internal_error` (500) and `service_unavailable` (503). Retry 5xx shortly.",
    "",
    `**Limits.** Request bodies: ${DEFAULTS.MAX_BODY_BYTES / 1024} KiB. Account creation: ${perWindow(DEFAULTS.RATE_LIMIT_ACCOUNT_CREATE)} per client address. Bad API keys: ${DEFAULTS.RATE_LIMIT_AUTH_FAILURES.limit} per`,
    `${DEFAULTS.RATE_LIMIT_AUTH_FAILURES.windowSeconds / 60} minutes per client address; past that, bad keys from that address get 429 instead of 401 until the window`,
    "ends, while good keys keep working. An IPv6 client is counted by its /64. Counters are per app instance.",
    "No other request-rate limit applies today.",
    "",
    "**Keys.** `vpsk_` + 43 base62 characters (256 random bits) + a 6-character checksum; an account holds at",
    `most ${MAX_ACTIVE_KEYS} active keys. Each operation needs one scope (its \`x-scope\`, listed under Key scopes);`,
    "a key without it is refused with `403 missing_scope`, naming the scopes needed and those the key holds.",
    "Keys made without scopes hold every scope, as every key did before scopes existed. A key may also expire",
    "(`401 key_expired`), be limited to client networks (`403 address_not_allowed`) and to some servers (the",
    "others answer 404), and carry a spend cap (`402 spend_cap_exceeded`): the service checks all of them,",
    "whoever holds the key. `GET /keys/current` tells a key what it is.",
  ].join("\n"),
};
