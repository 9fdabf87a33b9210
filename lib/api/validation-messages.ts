import { CYCLES, LOCATIONS, OS_IMAGES, PLANS } from "@/lib/catalog/catalog";
import { TOPUP_MAX_CENTS, TOPUP_MIN_CENTS } from "@/lib/catalog/topup-limits";
import { API_KEY_SCOPES, EVENT_TYPES } from "@/lib/db/types";
import { COINS } from "@/lib/rails/registry";
import type { ErrorCode } from "./error-codes";

const list = (items: readonly string[]) => items.join(", ");

/**
 * What a 400 for a body field says, in plain words: what to send instead. Keyed by the error code the field
 * reports; a route whose field means something else under the same code gives its own message.
 */
export const VALIDATION_MESSAGES = {
  invalid_plan: `Choose plan from the catalog: ${list(PLANS.map((plan) => plan.id))}.`,
  invalid_location: `Choose location from the catalog: ${list(LOCATIONS.map((location) => location.id))}.`,
  invalid_os: `Choose os from the catalog: ${list(OS_IMAGES.map((os) => os.id))}.`,
  invalid_cycle: `Send cycle as ${list(CYCLES)}, or leave it out for monthly.`,
  invalid_hostname:
    "Use a host name of letters, digits, hyphens and dots (RFC 1123, at most 253 characters), or leave it out for a generated one.",
  invalid_root_password:
    "Use a root password of 10 to 128 printable ASCII characters without spaces, or leave it out to get a generated one.",
  amount_too_low: `The smallest top-up is ${TOPUP_MIN_CENTS / 100} USD: send an amount of at least ${TOPUP_MIN_CENTS / 100}.`,
  amount_too_high: `The largest top-up is ${TOPUP_MAX_CENTS / 100} USD: send an amount of at most ${TOPUP_MAX_CENTS / 100}.`,
  invalid_amount: "Send amount as a number of US dollars with at most two decimals, e.g. 50 or 49.99.",
  invalid_coin: `Choose coin from: ${list(COINS.map((coin) => coin.code))}.`,
  invalid_name: "Use a key name of 1 to 64 letters, digits, spaces or . _ : @ ( ) -, or leave it out.",
  invalid_auto_renew: "Send auto_renew as true or false.",
  invalid_action: "Send action as start, stop or reboot.",
  invalid_confirm: "Send confirm as the server's hostname.",
  invalid_login: "Send login_token as the token shown when the account was created (four groups of four).",
  invalid_totp_code: "Send the 6-digit code your authenticator app shows now.",
  invalid_advance: "Send advance_seconds as a whole number of seconds, at least 1.",
  invalid_kind: "Send kind as webhook (a signed JSON POST) or ntfy (a push to an ntfy topic URL).",
  invalid_events: `Send events as a non-empty list of event types: ${list(EVENT_TYPES)}.`,
  invalid_description: "Send description as text of at most 200 characters, or leave it out.",
  invalid_enabled: "Send enabled as true or false.",
  invalid_ntfy_token:
    "Send ntfy_token as 1 to 200 printable ASCII characters without spaces (null removes it).",
  invalid_previous_valid_hours: "Send previous_valid_hours as a whole number of hours from 0 to 168.",
  invalid_scopes: `Send scopes as a non-empty list of key scopes: ${list(API_KEY_SCOPES)}.`,
  invalid_expires_at: "Send expires_at as a date-time with its offset, e.g. 2027-03-01T00:00:00Z.",
  invalid_server_ids: "Send server_ids as a list of 1 to 100 of this account's server ids.",
  invalid_spend_cap:
    "Send spend_cap as {amount_usd, period}: 0 to 100000 USD in whole cents, period day, week, month or total.",
} satisfies Partial<Record<ErrorCode, string>>;

/** The plain message for a code, when it has one. */
export const validationMessage = (code: string): string | undefined =>
  (VALIDATION_MESSAGES as Record<string, string>)[code];
