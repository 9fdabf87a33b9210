/**
 * The chains the API suite runs against: a local Base (chain id 8453) with a test USDC placed at the real
 * USDC address, behind a fault-injecting proxy for the app's settlement RPC, and a local Ethereum
 * (chain id 1) with a test USDT, watched by the app's EVM deposit watcher through a proxy that holds
 * `eth_getLogs` to geth's filter limits (anvil has none), with call traces read for internal transfers, and
 * woken by its new heads (`eth_subscribe` over the chain's WebSocket, through a proxy that can lose them).
 */
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { type LocalChain, startAnvil } from "@/lib/demo-chain/anvil";
import { fundNativeBalance, installTestToken } from "@/lib/demo-chain/test-token";
import { type RpcProxy, startRpcProxy } from "./rpc-proxy";
import { startWsProxy, type WsProxy } from "./ws-proxy";

export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;

export type TestChains = {
  base: LocalChain;
  baseProxy: RpcProxy;
  usdc: `0x${string}`;
  payTo: `0x${string}`;
  relayer: `0x${string}`;
  ethereum: LocalChain;
  /** What the app's EVM watcher reads: the Ethereum chain behind geth's `eth_getLogs` limits. */
  ethereumProxy: RpcProxy;
  /** The Ethereum chain's WebSocket as the watcher's push reads it (ws-proxy.ts). */
  ethereumWsProxy: WsProxy;
  usdt: `0x${string}`;
  /** Environment for the app under test. */
  appEnv: Record<string, string>;
  stop: () => Promise<void>;
};

export async function startTestChains(): Promise<TestChains> {
  const [base, ethereum] = await Promise.all([startAnvil({ chainId: 8453 }), startAnvil({ chainId: 1 })]);
  const usdc = await installTestToken(
    base.rpcUrl,
    { name: "USD Coin", version: "2", symbol: "USDC", decimals: 6 },
    { at: BASE_USDC },
  );
  const usdt = await installTestToken(ethereum.rpcUrl, {
    name: "Tether USD",
    version: "1",
    symbol: "USDT",
    decimals: 6,
  });
  const relayerKey = generatePrivateKey();
  await fundNativeBalance(base.rpcUrl, privateKeyToAddress(relayerKey), 10n ** 20n);
  const payTo = privateKeyToAddress(generatePrivateKey());
  const baseProxy = await startRpcProxy(base.rpcUrl);
  const ethereumProxy = await startRpcProxy(ethereum.rpcUrl);
  const ethereumWsProxy = await startWsProxy(ethereum.rpcUrl.replace(/^http/, "ws"));
  return {
    base,
    baseProxy,
    usdc,
    payTo,
    relayer: privateKeyToAddress(relayerKey),
    ethereum,
    ethereumProxy,
    ethereumWsProxy,
    usdt,
    appEnv: {
      X402_RPC_URL: baseProxy.url,
      X402_PAY_TO: payTo,
      X402_RELAYER_PRIVATE_KEY: relayerKey,
      EVM_RPC_URL: ethereumProxy.url,
      EVM_WS_URL: ethereumWsProxy.url,
      EVM_TRACE_INTERNAL_TRANSFERS: "1",
      EVM_USDT_ADDRESS: usdt,
      DEPOSIT_CONFIRMATIONS: "ETH:3,USDT:3",
      WATCHER_INTERVAL_MS: "300",
      // With its push working, the EVM watcher polls every second (its new heads wake it between).
      WATCHER_PUSH_INTERVAL_MS: "1000",
      ENABLE_TEST_CLOCK: "1",
    },
    stop: async () => {
      await Promise.all([baseProxy.stop(), ethereumProxy.stop(), ethereumWsProxy.stop()]);
      await Promise.all([base.stop(), ethereum.stop()]);
    },
  };
}
