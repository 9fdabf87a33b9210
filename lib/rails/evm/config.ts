import "server-only";
import { isAddress } from "viem";
import { z } from "zod";
import { envSlice, httpUrl, optionalText } from "@/lib/config/slice";
import { USDT_ERC20_MAINNET } from "@/lib/rails/registry";

const evmAddress = optionalText.pipe(
  z
    .string()
    .refine((value) => isAddress(value, { strict: false }), "must be a 0x-prefixed 20-byte address")
    .optional(),
);

/** The Ethereum node the EVM watcher reads, and the token contracts it watches. */
export const EVM_SETTINGS = envSlice({
  name: "evm",
  shape: {
    EVM_RPC_URL: httpUrl,
    EVM_CHAIN_ID: z.coerce.number().int().min(1).default(1),
    EVM_USDT_ADDRESS: evmAddress,
    EVM_TRACE_INTERNAL_TRANSFERS: z.enum(["0", "1"]).default("0"),
  },
  derive: (values) => ({
    rpcUrl: values.EVM_RPC_URL,
    chainId: values.EVM_CHAIN_ID,
    usdtAddress: (values.EVM_USDT_ADDRESS ?? USDT_ERC20_MAINNET) as `0x${string}`,
    /** Read call traces so ether sent by contracts (internal calls) is credited; the node must serve them. */
    traceInternalTransfers: values.EVM_TRACE_INTERNAL_TRANSFERS === "1",
  }),
});

export const evmSettings = () => EVM_SETTINGS.read();
