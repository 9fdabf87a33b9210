import "server-only";
import path from "node:path";
import { createPublicClient, http, parseAbi } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { config } from "@/lib/config/env";
import { x402Settings } from "@/lib/rails/x402/config";
import { provideX402RpcUrl } from "@/lib/rails/x402/rail";
import { startAnvil } from "./anvil";
import { fundNativeBalance, installTestToken, mintTestToken } from "./test-token";

/** The demo wallet holds this much test USDC, topped up at each start. */
const DEMO_WALLET_USDC = 10_000n * 1_000_000n;

export type DemoChainInfo = {
  rpcUrl: string;
  chainId: number;
  usdc: `0x${string}`;
  demoWallet: `0x${string}`;
};

/**
 * Demo mode without X402_RPC_URL: runs a local chain with Base's chain id, places a test USDC with the
 * real contract's address and EIP-712 domain, gives the relayer gas and the demo wallet USDC. The chain's
 * state is kept in DATA_DIR, so balances survive a restart. Never started outside demo mode.
 */
export async function startDemoChain(): Promise<DemoChainInfo> {
  const { mode, dataDir } = config();
  const x402 = x402Settings();
  const { demo } = x402;
  if (mode !== "demo" || !demo) throw new Error("the demo chain runs in demo mode only");
  const chain = await startAnvil({
    chainId: x402.chainId,
    port: x402.demoChainPort,
    statePath: path.join(dataDir, "demo-chain.json"),
  });
  const usdc = await installTestToken(
    chain.rpcUrl,
    { name: x402.usdc.name, version: x402.usdc.version, symbol: "USDC", decimals: 6 },
    { at: x402.usdc.address },
  );
  await fundNativeBalance(chain.rpcUrl, privateKeyToAddress(demo.chainRelayerKey), 10n ** 20n);
  const demoWallet = privateKeyToAddress(demo.chainWalletKey);
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  const balance = await client.readContract({
    address: usdc,
    abi: parseAbi(["function balanceOf(address) view returns (uint256)"]),
    functionName: "balanceOf",
    args: [demoWallet],
  });
  if (balance < DEMO_WALLET_USDC)
    await mintTestToken(chain.rpcUrl, usdc, demoWallet, DEMO_WALLET_USDC - balance);
  provideX402RpcUrl(chain.rpcUrl);
  return { rpcUrl: chain.rpcUrl, chainId: chain.chainId, usdc, demoWallet };
}
