import "server-only";
import { z } from "zod";
import { envSlice, httpUrl, optionalText } from "@/lib/config/slice";
import { USDT_TRC20 } from "@/lib/rails/registry";
import { tronToEvmHex } from "./address";

const isTronAddress = (value: string) => {
  try {
    tronToEvmHex(value);
    return true;
  } catch {
    return false;
  }
};

/** java-tron's Ethereum-style JSON-RPC (full node, and the solidity node for irreversible blocks). */
export const TRON_SETTINGS = envSlice({
  name: "tron",
  shape: {
    TRON_RPC_URL: httpUrl,
    TRON_SOLIDITY_RPC_URL: httpUrl,
    // The base58check checksum is checked here, so a mistyped contract stops the app at start with this
    // message instead of failing every read of the deposit rails later.
    TRON_USDT_ADDRESS: optionalText.pipe(
      z
        .string()
        .regex(/^(T[1-9A-HJ-NP-Za-km-z]{33}|0x[0-9a-fA-F]{40})$/, "must be a T… or 0x… contract address")
        .refine(
          (value) => value.startsWith("0x") || isTronAddress(value),
          "not a TRON address: its base58check checksum does not match (mistyped?)",
        )
        .optional(),
    ),
  },
  derive: (values) => ({
    rpcUrl: values.TRON_RPC_URL,
    solidityRpcUrl: values.TRON_SOLIDITY_RPC_URL,
    usdtContract: values.TRON_USDT_ADDRESS ?? USDT_TRC20,
  }),
});

export const tronSettings = () => TRON_SETTINGS.read();
