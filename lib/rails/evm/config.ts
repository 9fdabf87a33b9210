import "server-only";
import { z } from "zod";
import { envSlice, evmAddress, httpUrl, wsUrl } from "@/lib/config/slice";
import { tokenSettings } from "../deposits/tokens";

/** The family's ERC-20 tokens, each with the variable that may name another contract. */
const TOKENS = tokenSettings("evm", evmAddress);

/** The Ethereum node the EVM watcher reads, and the token contracts it watches. */
export const EVM_SETTINGS = envSlice({
  name: "evm",
  shape: {
    EVM_RPC_URL: httpUrl,
    EVM_WS_URL: wsUrl,
    EVM_CHAIN_ID: z.coerce.number().int().min(1).default(1),
    EVM_TRACE_INTERNAL_TRANSFERS: z.enum(["0", "1"]).default("0"),
    ...TOKENS.shape,
  },
  derive: (values) => ({
    rpcUrl: values.EVM_RPC_URL,
    /** The same node's WebSocket: new heads wake the watcher (`eth_subscribe`). */
    wsUrl: values.EVM_WS_URL,
    chainId: values.EVM_CHAIN_ID,
    /** Each token's contract by coin code: the variable's, else the token's own on mainnet. */
    tokens: TOKENS.contracts(values) as Record<string, `0x${string}`>,
    /** Read call traces so ether sent by contracts (internal calls) is credited; the node must serve them. */
    traceInternalTransfers: values.EVM_TRACE_INTERNAL_TRANSFERS === "1",
  }),
});

export const evmSettings = () => EVM_SETTINGS.read();
