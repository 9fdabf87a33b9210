import "server-only";
import type { X402Family } from "../family";
import { X402_SETTINGS } from "./config";
import { x402Rail } from "./rail";

/** USDC on Base paid by x402: no address and no watcher; the rail verifies and settles each authorization. */
export const X402_FAMILY: X402Family = {
  id: "x402",
  method: "x402",
  settings: X402_SETTINGS,
  rail: x402Rail,
};
