import "server-only";
import { isAddress } from "viem";
import { z } from "zod";
import { envSlice, httpUrl, optionalText } from "@/lib/config/slice";
import { COINS } from "@/lib/rails/registry";

const evmAddress = optionalText.pipe(
  z
    .string()
    .refine((value) => isAddress(value, { strict: false }), "must be a 0x-prefixed 20-byte address")
    .optional(),
);

/** The family's ERC-20 tokens, each with the variable that may name another contract. */
const TOKENS = COINS.flatMap((coin) =>
  coin.method === "deposit" && coin.family === "evm" && "token" in coin
    ? [{ code: coin.code, ...coin.token }]
    : [],
);

/** The Ethereum node the EVM watcher reads, and the token contracts it watches. */
export const EVM_SETTINGS = envSlice({
  name: "evm",
  shape: {
    EVM_RPC_URL: httpUrl,
    EVM_CHAIN_ID: z.coerce.number().int().min(1).default(1),
    EVM_TRACE_INTERNAL_TRANSFERS: z.enum(["0", "1"]).default("0"),
    ...Object.fromEntries(TOKENS.map((token) => [token.setting, evmAddress])),
  },
  derive: (values) => ({
    rpcUrl: values.EVM_RPC_URL,
    chainId: values.EVM_CHAIN_ID,
    /** Each token's contract by coin code: the variable's, else the token's own on mainnet. */
    tokens: Object.fromEntries(
      TOKENS.map((token) => [
        token.code,
        ((values as Record<string, unknown>)[token.setting] ?? token.contract) as `0x${string}`,
      ]),
    ) as Record<string, `0x${string}`>,
    /** Read call traces so ether sent by contracts (internal calls) is credited; the node must serve them. */
    traceInternalTransfers: values.EVM_TRACE_INTERNAL_TRANSFERS === "1",
  }),
});

export const evmSettings = () => EVM_SETTINGS.read();
