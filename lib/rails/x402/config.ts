import "server-only";
import { randomBytes } from "node:crypto";
import { privateKeyToAddress } from "viem/accounts";
import { z } from "zod";
import { envSlice, evmAddress, httpUrl, optionalText } from "@/lib/config/slice";
import { USDC_BY_NETWORK } from "./facts";

const privateKey = optionalText.pipe(
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key")
    .optional(),
);

/** A JSON object of header name -> value sent to the x402 facilitator (its API key, for instance). */
const facilitatorHeaders = optionalText.transform((value, context) => {
  if (value === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  const headers = z.record(z.string().regex(/^[A-Za-z0-9-]+$/), z.string()).safeParse(parsed);
  if (!headers.success) {
    context.addIssue({
      code: "custom",
      message: 'must be a JSON object of header names to values, e.g. {"Authorization":"Bearer ..."}',
    });
    return z.NEVER;
  }
  return headers.data;
});

export type X402Config = {
  network: "base" | "base-sepolia";
  chainId: number;
  /** Unset in demo mode until the local chain has started (see lib/demo-chain/demo-chain). */
  rpcUrl: string | undefined;
  usdc: { address: `0x${string}`; name: string; version: string };
  payTo: `0x${string}` | undefined;
  relayerPrivateKey: `0x${string}` | undefined;
  maxTimeoutSeconds: number;
  /** When set, verification and settlement are delegated to this x402 facilitator instead of our relayer. */
  facilitator: { url: string; headers: Record<string, string> } | undefined;
};

/** Keys of accounts that exist only on the demo's local chain (generated into DATA_DIR). */
export type DemoChainValues = {
  chainRelayerKey: `0x${string}`;
  chainPayTo: `0x${string}`;
  chainWalletKey: `0x${string}`;
};

export type X402Settings = X402Config & {
  /** Demo-only values generated into DATA_DIR; undefined in production. */
  demo: DemoChainValues | undefined;
  /** The local chain's port in demo mode (0: any free one). */
  demoChainPort: number;
};

const randomKey = () => `0x${randomBytes(32).toString("hex")}`;

export const X402_SETTINGS = envSlice({
  name: "x402",
  shape: {
    X402_NETWORK: z.enum(["base", "base-sepolia"]).default("base"),
    X402_RPC_URL: httpUrl,
    X402_USDC_ADDRESS: evmAddress,
    X402_USDC_NAME: optionalText,
    X402_USDC_VERSION: optionalText,
    X402_PAY_TO: evmAddress,
    X402_RELAYER_PRIVATE_KEY: privateKey,
    X402_MAX_TIMEOUT_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
    X402_FACILITATOR_URL: httpUrl,
    X402_FACILITATOR_HEADERS: facilitatorHeaders,
    DEMO_CHAIN_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  },
  // With a facilitator, it settles and pays the gas: no relayer key of ours is needed.
  requiredInProduction: (values) => [
    "X402_RPC_URL",
    "X402_PAY_TO",
    ...(values.X402_FACILITATOR_URL === undefined ? ["X402_RELAYER_PRIVATE_KEY"] : []),
  ],
  derive(values, { mode, demoValue }): X402Settings {
    const usdc = USDC_BY_NETWORK[values.X402_NETWORK];
    const demo: DemoChainValues | undefined =
      mode === "demo"
        ? {
            chainRelayerKey: demoValue("chainRelayerKey", randomKey) as `0x${string}`,
            chainPayTo: privateKeyToAddress(demoValue("chainPayToKey", randomKey) as `0x${string}`),
            chainWalletKey: demoValue("chainWalletKey", randomKey) as `0x${string}`,
          }
        : undefined;
    return {
      network: values.X402_NETWORK,
      chainId: usdc.chainId,
      rpcUrl: values.X402_RPC_URL,
      usdc: {
        address: (values.X402_USDC_ADDRESS ?? usdc.address) as `0x${string}`,
        name: values.X402_USDC_NAME ?? usdc.name,
        version: values.X402_USDC_VERSION ?? usdc.version,
      },
      payTo: (values.X402_PAY_TO as `0x${string}` | undefined) ?? demo?.chainPayTo,
      relayerPrivateKey:
        (values.X402_RELAYER_PRIVATE_KEY as `0x${string}` | undefined) ?? demo?.chainRelayerKey,
      maxTimeoutSeconds: values.X402_MAX_TIMEOUT_SECONDS,
      facilitator: values.X402_FACILITATOR_URL
        ? { url: values.X402_FACILITATOR_URL, headers: values.X402_FACILITATOR_HEADERS }
        : undefined,
      demo,
      demoChainPort: values.DEMO_CHAIN_PORT,
    };
  },
});

/** The process's x402 settings. */
export const x402Settings = (): X402Settings => X402_SETTINGS.read();
