/**
 * A browser wallet for Playwright: an EIP-1193 provider injected as `window.ethereum`, whose account is a
 * viem private-key account living in the test process (the key never enters the page). Reads go to the
 * local chain; `eth_signTypedData_v4` is signed here, or refused with code 4001 as a user would.
 */
import type { Page } from "@playwright/test";
import { createPublicClient, createTestClient, createWalletClient, type Hex, http, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { testTokenAbi } from "@/lib/demo-chain/test-token-abi";

export type SignedTypedData = { primaryType: string; message: Record<string, string> };

export type TestWallet = {
  address: Hex;
  /** Every typed-data signature request, signed or refused, in order. */
  signRequests: SignedTypedData[];
  /** Refuse the next `count` signature requests as the user would (EIP-1193 code 4001). */
  rejectNextSignatures(count: number): void;
  /** Refuse the next `count` network switches as the user would. */
  rejectNextSwitches(count: number): void;
  /** Sign the next `count` requests with another key: a signature the token contract will refuse. */
  signWithWrongKeyNext(count: number): void;
};

type Envelope = { result?: unknown; error?: { code: number; message: string } };

export async function injectTestWallet(
  page: Page,
  options: { privateKey: Hex; rpcUrl: string; chainId: number },
): Promise<TestWallet> {
  const account = privateKeyToAccount(options.privateKey);
  const signRequests: SignedTypedData[] = [];
  let rejections = 0;
  let switchRejections = 0;
  let wrongKeySignatures = 0;
  let chainId = options.chainId;
  let id = 0;

  // Errors thrown across exposeFunction lose their `code`: answer with an envelope and throw in the page.
  await page.exposeFunction("__testWalletRequest", async (method: string, params: unknown[]) => {
    const answer = async (): Promise<Envelope> => {
      switch (method) {
        case "eth_requestAccounts":
        case "eth_accounts":
          return { result: [account.address] };
        case "eth_chainId":
          return { result: toHex(chainId) };
        case "wallet_switchEthereumChain": {
          if (switchRejections > 0) {
            switchRejections -= 1;
            return { error: { code: 4001, message: "User rejected the request." } };
          }
          chainId = Number((params[0] as { chainId: string }).chainId);
          return { result: null };
        }
        case "wallet_requestPermissions":
          return {
            result: [
              {
                parentCapability: "eth_accounts",
                caveats: [{ type: "restrictReturnedAccounts", value: [account.address] }],
              },
            ],
          };
        case "wallet_revokePermissions":
          return { result: null };
        case "eth_signTypedData_v4": {
          const typed = JSON.parse(String(params[1]));
          signRequests.push({ primaryType: typed.primaryType, message: typed.message });
          if (rejections > 0) {
            rejections -= 1;
            return { error: { code: 4001, message: "User rejected the request." } };
          }
          const { EIP712Domain: _domainType, ...types } = typed.types;
          const signer = wrongKeySignatures > 0 ? privateKeyToAccount(generatePrivateKey()) : account;
          if (wrongKeySignatures > 0) wrongKeySignatures -= 1;
          const signature = await signer.signTypedData({
            domain: typed.domain,
            types,
            primaryType: typed.primaryType,
            message: typed.message,
          });
          return { result: signature };
        }
        default: {
          id += 1;
          const response = await fetch(options.rpcUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
          });
          return (await response.json()) as Envelope;
        }
      }
    };
    return answer();
  });

  await page.addInitScript(() => {
    const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
    const bridge = (
      window as unknown as { __testWalletRequest: (m: string, p: unknown[]) => Promise<Envelope> }
    ).__testWalletRequest;
    (window as unknown as { ethereum: unknown }).ethereum = {
      async request({ method, params }: { method: string; params?: unknown[] }) {
        const envelope = await bridge(method, params ?? []);
        if (envelope.error) {
          throw Object.assign(new Error(envelope.error.message), { code: envelope.error.code });
        }
        if (method === "wallet_switchEthereumChain") {
          const switched = (params?.[0] as { chainId?: string } | undefined)?.chainId;
          for (const listener of listeners.get("chainChanged") ?? []) listener(switched);
        }
        return envelope.result;
      },
      on(event: string, listener: (...args: unknown[]) => void) {
        if (!listeners.has(event)) listeners.set(event, new Set());
        listeners.get(event)?.add(listener);
      },
      removeListener(event: string, listener: (...args: unknown[]) => void) {
        listeners.get(event)?.delete(listener);
      },
    };
  });

  return {
    address: account.address,
    signRequests,
    rejectNextSignatures(count) {
      rejections = count;
    },
    rejectNextSwitches(count) {
      switchRejections = count;
    },
    signWithWrongKeyNext(count) {
      wrongKeySignatures = count;
    },
  };
}

/** Mints test USDC (its `mint` is open on the local chains) to `to`, from a throwaway funded sender. */
export async function mintTestUsdc(rpcUrl: string, token: Hex, to: Hex, units: bigint): Promise<void> {
  const minter = privateKeyToAccount(generatePrivateKey());
  const transport = http(rpcUrl);
  await createTestClient({ mode: "anvil", transport }).setBalance({
    address: minter.address,
    value: 10n ** 18n,
  });
  const hash = await createWalletClient({ account: minter, transport }).writeContract({
    chain: null,
    address: token,
    abi: testTokenAbi,
    functionName: "mint",
    args: [to, units],
  });
  const receipt = await createPublicClient({ transport, pollingInterval: 100 }).waitForTransactionReceipt({
    hash,
  });
  if (receipt.status !== "success") throw new Error(`mint ${units} to ${to} reverted`);
}
