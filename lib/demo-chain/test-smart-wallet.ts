/**
 * Deploys lib/demo-chain/contracts/TestSmartWallet.sol (an ERC-1271 contract wallet) on a local anvil chain, from
 * a throwaway account given ether with `anvil_setBalance`. For tests only.
 */
import { createPublicClient, createWalletClient, type Hex, http, maxUint256 } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import artifact from "./contracts/test-smart-wallet.json";
import { testSmartWalletAbi } from "./test-smart-wallet-abi";
import { fundNativeBalance } from "./test-token";

/** `burnGasAbove` of a wallet that always answers honestly. */
export const NEVER_BURNS = maxUint256;

/**
 * A wallet owned by `owner` (an address whose ECDSA signatures it accepts). Its `isValidSignature` burns all
 * its gas whenever it is given more than `burnGasAbove` (0: always; NEVER_BURNS: never).
 */
export async function deployTestSmartWallet(
  rpcUrl: string,
  owner: `0x${string}`,
  burnGasAbove: bigint,
): Promise<`0x${string}`> {
  const deployer = privateKeyToAccount(generatePrivateKey());
  await fundNativeBalance(rpcUrl, deployer.address, 10n ** 18n);
  const transport = http(rpcUrl);
  const hash = await createWalletClient({ account: deployer, transport }).deployContract({
    chain: null,
    abi: testSmartWalletAbi,
    bytecode: artifact.bytecode as Hex,
    args: [owner, burnGasAbove],
  });
  const receipt = await createPublicClient({ transport, pollingInterval: 100 }).waitForTransactionReceipt({
    hash,
  });
  if (receipt.status !== "success" || !receipt.contractAddress) {
    throw new Error(`TestSmartWallet did not deploy (${hash})`);
  }
  return receipt.contractAddress;
}

/**
 * Gas a node spends on an `eth_call`: the same call run again with `debug_traceCall` (anvil and geth), so with
 * the node's own cap when the call names no gas.
 */
export async function gasUsedByCall(rpcUrl: string, request: unknown): Promise<bigint> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "debug_traceCall",
      params: [request, "latest", { tracer: "callTracer" }],
    }),
  });
  const { result } = (await response.json()) as { result: { gasUsed: Hex } };
  return BigInt(result.gasUsed);
}
