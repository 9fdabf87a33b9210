import type { Chain, Transport } from "viem";
import { type Config, createConfig, http, injected } from "wagmi";
import { base, baseSepolia } from "wagmi/chains";
import type { Hex } from "@/lib/dashboard/wallet/authorization";
import { demoWalletProvider } from "./demo-provider";

export const DEMO_CONNECTOR_ID = "demo-wallet";

const configs = new Map<string, Config>();

/**
 * One wagmi config per payment chain: browser wallets found by window.ethereum and EIP-6963, plus the
 * demo wallet in demo mode. Reads (chain id, USDC balance) go through the BFF's read-only RPC, so the
 * page needs no third-party node and the configured one stays private.
 */
export function walletConfig(chainId: number, demoWallet: Hex | undefined): Config {
  const key = `${chainId}:${demoWallet ?? ""}`;
  const existing = configs.get(key);
  if (existing) return existing;
  const rpcUrl = `${window.location.origin}/bff/wallet/rpc`;
  const known = chainId === baseSepolia.id ? baseSepolia : base;
  const chain = { ...known, rpcUrls: { default: { http: [rpcUrl] } } };
  const connectors = [injected()];
  if (demoWallet) {
    connectors.push(
      injected({
        target: {
          id: DEMO_CONNECTOR_ID,
          name: "Demo wallet (test USDC on the demo chain)",
          provider: demoWalletProvider(demoWallet, chain.id, rpcUrl) as never,
        },
      }),
    );
  }
  const config = createConfig({
    chains: [chain as Chain],
    connectors,
    transports: { [chain.id]: http(rpcUrl, { batch: false }) } as Record<number, Transport>,
    // Plain eth_call reads: a local chain need not have Multicall3 deployed.
    batch: { multicall: false },
  });
  configs.set(key, config);
  return config;
}
