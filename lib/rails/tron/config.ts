import "server-only";
import { z } from "zod";
import { envSlice, httpUrl, optionalText } from "@/lib/config/slice";
import { tokenSettings } from "../deposits/tokens";
import { tronToEvmHex } from "./address";

const isTronAddress = (value: string) => {
  try {
    tronToEvmHex(value);
    return true;
  } catch {
    return false;
  }
};

// The base58check checksum is checked here, so a mistyped contract stops the app at start with this
// message instead of failing every read of the deposit rails later.
const tronContract = optionalText.pipe(
  z
    .string()
    .regex(/^(T[1-9A-HJ-NP-Za-km-z]{33}|0x[0-9a-fA-F]{40})$/, "must be a T… or 0x… contract address")
    .refine(
      (value) => value.startsWith("0x") || isTronAddress(value),
      "not a TRON address: its base58check checksum does not match (mistyped?)",
    )
    .optional(),
);

/** The family's TRC-20 tokens, each with the variable that may name another contract. */
const TOKENS = tokenSettings("tron", tronContract);

/** java-tron's Ethereum-style JSON-RPC (full node, and the solidity node for irreversible blocks). */
export const TRON_SETTINGS = envSlice({
  name: "tron",
  shape: {
    TRON_RPC_URL: httpUrl,
    TRON_SOLIDITY_RPC_URL: httpUrl,
    ...TOKENS.shape,
  },
  derive: (values) => ({
    rpcUrl: values.TRON_RPC_URL,
    solidityRpcUrl: values.TRON_SOLIDITY_RPC_URL,
    /** Each token's contract by coin code (`T…` or `0x…` as configured), else the token's own. */
    tokens: TOKENS.contracts(values),
  }),
});

export const tronSettings = () => TRON_SETTINGS.read();
