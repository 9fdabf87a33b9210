/**
 * The demo wallet as an EIP-1193 provider: its account lives on the demo's local chain and its key on the
 * server, which signs top-up authorizations only (see /bff/wallet/demo-sign). Reads go to the BFF's
 * read-only RPC. It plugs into wagmi's injected connector like any browser wallet.
 */
import { bffFetch } from "@/lib/dashboard/queries/bff-fetch";
import type { Hex } from "@/lib/dashboard/wallet/authorization";

type RequestArguments = { method: string; params?: unknown };

const providerError = (code: number, message: string) => Object.assign(new Error(message), { code });

export function demoWalletProvider(address: Hex, chainId: number, rpcUrl: string) {
  const chainHex = `0x${chainId.toString(16)}`;
  let requestId = 0;
  // Like a real wallet, it shares its account only after the person connected it (not on page load).
  let authorized = false;
  return {
    async request({ method, params }: RequestArguments): Promise<unknown> {
      const list = (Array.isArray(params) ? params : []) as unknown[];
      switch (method) {
        case "eth_requestAccounts":
          authorized = true;
          return [address];
        case "eth_accounts":
          return authorized ? [address] : [];
        case "eth_chainId":
          return chainHex;
        case "wallet_requestPermissions":
          authorized = true;
          return [{ parentCapability: "eth_accounts" }];
        case "wallet_revokePermissions":
          authorized = false;
          return null;
        case "wallet_switchEthereumChain": {
          const wanted = (list[0] as { chainId?: string } | undefined)?.chainId;
          if (wanted && Number(wanted) === chainId) return null;
          throw providerError(4902, "The demo wallet lives on the demo chain only.");
        }
        case "eth_signTypedData_v4": {
          const typed = JSON.parse(String(list[1])) as {
            primaryType?: string;
            message?: Record<string, string>;
          };
          if (typed.primaryType !== "TransferWithAuthorization" || !typed.message) {
            throw providerError(4200, "The demo wallet signs top-up payments only.");
          }
          const { to, value, validAfter, validBefore, nonce } = typed.message;
          const signed = await bffFetch<{ signature: Hex }>("/bff/wallet/demo-sign", {
            method: "POST",
            body: {
              to,
              value: String(value),
              validAfter: String(validAfter),
              validBefore: String(validBefore),
              nonce,
            },
          });
          return signed.signature;
        }
        default: {
          requestId += 1;
          const response = await fetch(rpcUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", id: requestId, method, params: list }),
          });
          const body = (await response.json()) as {
            result?: unknown;
            error?: { code: number; message: string };
          };
          if (body.error) throw providerError(body.error.code, body.error.message);
          return body.result;
        }
      }
    },
    on() {},
    removeListener() {},
  };
}
