import "server-only";
import { HTTPFacilitatorClient } from "@x402/core/http";
import {
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
  VerifyError,
  type VerifyResponse,
} from "@x402/core/types";
import { authorizationTypes, toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmSchemeV1 } from "@x402/evm/exact/v1/facilitator";
import {
  BaseError,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  parseAbi,
  parseAbiItem,
  publicActions,
  type TypedDataDefinition,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { processWide } from "@/lib/util/process-wide";
import { x402Settings } from "./config";
import {
  checkPayerSignature,
  PAYER_CODE_TIMEOUT_MS,
  type PayerSignature,
  readContractWithGas,
  SETTLEMENT_GAS,
  SIGNATURE_CHECK_GAS,
} from "./payer-code";
import type { ExactEvmPayloadV1 } from "./payload";
import type { X402Requirement } from "./requirements";
import { type AuthorizedTransfer, authorizedTransferIndex } from "./settlement";

const EIP3009_ABI = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function balanceOf(address account) view returns (uint256)",
]);
const AUTHORIZATION_USED = parseAbiItem(
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
);
/** How far back to look for a settlement someone else submitted; authorizations live minutes, not days. */
const SETTLEMENT_LOOKBACK_BLOCKS = 5_000n;
/** Receipt waits are bounded so a request never hangs on a stuck transaction. */
const CONFIRMATION_TIMEOUT_MS = 30_000;

/** The chain could not be reached or did not answer: retry later, nothing was decided. */
export class ChainUnavailableError extends Error {
  constructor(cause: unknown) {
    super("The payment network is unreachable.", { cause });
    this.name = "ChainUnavailableError";
  }
}

/**
 * Runs a chain call. Any failure of it (unreachable node, rate limit, refused log range, a token that does
 * not answer) means "the chain cannot tell us now": ChainUnavailableError, answered as 503 and never logged
 * with viem's full message, which can contain the RPC URL and its API key.
 */
async function onChain<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new ChainUnavailableError(error instanceof BaseError ? error.shortMessage : "chain call failed");
  }
}

export type ChainSettlement = { txHash: `0x${string}`; value: bigint; logIndex: number };
/** What an authorization moves: `value` from `payer` to `payTo`, under `nonce`. */
export type ExpectedTransfer = Omit<AuthorizedTransfer, "token">;

/** Verify and settle: our own relayer with the official exact scheme, or an x402 facilitator over HTTP. */
type Settler = {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
};

/**
 * An x402 facilitator: its refusals (VerifyError, SettleError: a non-2xx with a verdict) are verdicts;
 * anything else (unreachable, timeout, garbage) is ChainUnavailableError like a failed RPC call.
 */
function facilitatorSettler(url: string, headers: Record<string, string>, network: string): Settler {
  const client = new HTTPFacilitatorClient({
    url,
    timeoutMs: CONFIRMATION_TIMEOUT_MS + 15_000,
    createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
  });
  return {
    verify: (payload, requirements) =>
      client.verify(payload, requirements).catch((error: unknown) => {
        if (error instanceof VerifyError) {
          return { isValid: false, invalidReason: error.invalidReason, payer: error.payer };
        }
        throw new ChainUnavailableError("facilitator verify failed");
      }),
    settle: (payload, requirements) =>
      client.settle(payload, requirements).catch((error: unknown) => {
        if (error instanceof SettleError) {
          return {
            success: false,
            errorReason: error.errorReason,
            transaction: error.transaction ?? "",
            network: network as `${string}:${string}`,
          };
        }
        throw new ChainUnavailableError("facilitator settle failed");
      }),
  };
}

function buildRail(rpcUrl: string, relayerKey: `0x${string}` | undefined) {
  const settings = x402Settings();
  const chain = defineChain({
    id: settings.chainId,
    name: settings.network,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl, { timeout: 15_000, retryCount: 0 });
  // Base makes a block every 2 s; viem's default 4 s polling would double the wait for every receipt.
  const pollingInterval = 500;
  const publicClient = createPublicClient({ chain, transport, pollingInterval });
  // Every call that can run a payer's contract goes through this client, with an explicit gas limit
  // (./payer-code) and a timeout of its own.
  const payerCode = createPublicClient({
    chain,
    transport: http(rpcUrl, { timeout: PAYER_CODE_TIMEOUT_MS, retryCount: 0 }),
  });
  const ownRelayer = (key: `0x${string}`): Settler => {
    const wallet = createWalletClient({
      account: privateKeyToAccount(key),
      chain,
      transport,
      pollingInterval,
    }).extend(publicActions);
    // Transactions from our one relayer account are sent one at a time, so two settlements never take the
    // same account nonce; waiting for receipts happens outside the lock.
    let sending: Promise<unknown> = Promise.resolve();
    const serialised = <T>(send: () => Promise<T>): Promise<T> => {
      const next = sending.then(send, send);
      sending = next.catch(() => undefined);
      return next;
    };
    const signer = toFacilitatorEvmSigner(
      {
        address: wallet.account.address,
        // The scheme's reads include the payer's `isValidSignature` and the simulated transfer, which runs it
        // again inside the token: both under a gas limit, and the transaction is sent with one too, so the
        // node never estimates gas by running a payer's code up to its own cap.
        readContract: (args) =>
          readContractWithGas(
            payerCode,
            args,
            args.functionName === "isValidSignature" ? SIGNATURE_CHECK_GAS : SETTLEMENT_GAS,
          ),
        verifyTypedData: async ({ address, signature, ...typedData }) =>
          (await checkPayerSignature(payerCode, address, typedData as TypedDataDefinition, signature)) ===
          "valid",
        writeContract: (args) =>
          serialised(() =>
            wallet.writeContract({
              ...(args as Parameters<typeof wallet.writeContract>[0]),
              gas: SETTLEMENT_GAS,
            }),
          ),
        sendTransaction: (args) => serialised(() => wallet.sendTransaction(args)),
        waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
        getCode: (args) => wallet.getCode(args),
      },
      { confirmationTimeoutMs: CONFIRMATION_TIMEOUT_MS },
    );
    return new ExactEvmSchemeV1(signer);
  };
  const facilitator: Settler = settings.facilitator
    ? facilitatorSettler(settings.facilitator.url, settings.facilitator.headers, settings.network)
    : relayerKey
      ? ownRelayer(relayerKey)
      : (() => {
          throw new Error("X402_RELAYER_PRIVATE_KEY is not configured");
        })();
  const token = settings.usdc.address;

  /**
   * The transfer this authorization made in transaction `txHash`, from the transaction's receipt: the
   * `Transfer` paired with its own `AuthorizationUsed` (see ./settlement). Undefined when it holds none.
   */
  const settlementIn = async (
    txHash: `0x${string}`,
    expected: ExpectedTransfer,
  ): Promise<ChainSettlement | undefined> => {
    const receipt = await onChain(() => publicClient.getTransactionReceipt({ hash: txHash }));
    if (receipt.status !== "success") return undefined;
    const logIndex = authorizedTransferIndex(receipt.logs, { ...expected, token });
    return logIndex === undefined ? undefined : { txHash, value: expected.value, logIndex };
  };

  return {
    /**
     * Whether the payload's signature is the payer's: offline for ordinary (EOA) wallets, on chain under a gas
     * limit for contract wallets (./payer-code). Check the payer's balance first: a wallet without the money
     * never gets its code run.
     */
    payerSignature(payment: ExactEvmPayloadV1): Promise<PayerSignature> {
      const { authorization, signature } = payment.payload;
      const typedData: TypedDataDefinition = {
        domain: {
          name: settings.usdc.name,
          version: settings.usdc.version,
          chainId: settings.chainId,
          verifyingContract: token,
        },
        types: authorizationTypes,
        primaryType: "TransferWithAuthorization",
        message: {
          from: getAddress(authorization.from),
          to: getAddress(authorization.to),
          value: BigInt(authorization.value),
          validAfter: BigInt(authorization.validAfter),
          validBefore: BigInt(authorization.validBefore),
          nonce: authorization.nonce as Hex,
        },
      };
      return onChain(() =>
        checkPayerSignature(payerCode, getAddress(authorization.from), typedData, signature as Hex),
      );
    },

    authorizationUsed(payer: string, nonce: string): Promise<boolean> {
      return onChain(() =>
        publicClient.readContract({
          address: token,
          abi: EIP3009_ABI,
          functionName: "authorizationState",
          args: [getAddress(payer), nonce as `0x${string}`],
        }),
      );
    },

    balanceOf(owner: string): Promise<bigint> {
      return onChain(() =>
        publicClient.readContract({
          address: token,
          abi: EIP3009_ABI,
          functionName: "balanceOf",
          args: [getAddress(owner)],
        }),
      );
    },

    verify(payment: ExactEvmPayloadV1, requirement: X402Requirement): Promise<VerifyResponse> {
      return onChain(() =>
        facilitator.verify(
          payment as unknown as PaymentPayload,
          requirement as unknown as PaymentRequirements,
        ),
      );
    },

    settle(payment: ExactEvmPayloadV1, requirement: X402Requirement): Promise<SettleResponse> {
      return onChain(() =>
        facilitator.settle(
          payment as unknown as PaymentPayload,
          requirement as unknown as PaymentRequirements,
        ),
      );
    },

    settlementIn,

    /**
     * The transfer that used this authorization, whoever submitted it: the `AuthorizationUsed` log, then
     * the transfer it made in that transaction. This is what we credit from when our own settlement lost a
     * race (front-running), was batched by someone else, or its outcome was not seen.
     */
    async findSettlement(expected: ExpectedTransfer): Promise<ChainSettlement | undefined> {
      const head = await onChain(() => publicClient.getBlockNumber());
      const fromBlock = head > SETTLEMENT_LOOKBACK_BLOCKS ? head - SETTLEMENT_LOOKBACK_BLOCKS : 0n;
      const used = await onChain(() =>
        publicClient.getLogs({
          address: token,
          event: AUTHORIZATION_USED,
          args: { authorizer: getAddress(expected.payer), nonce: expected.nonce as `0x${string}` },
          fromBlock,
          toBlock: head,
        }),
      );
      const hit = used[0];
      if (!hit?.transactionHash) return undefined;
      return settlementIn(hit.transactionHash, expected);
    },
  };
}

export type X402Rail = ReturnType<typeof buildRail>;

type RailHolder = { rpcUrl?: string; rail?: X402Rail; waiting: ((rpcUrl: string) => void)[] };
const holder = () => processWide("x402.rail", (): RailHolder => ({ waiting: [] }));

/** Called by the demo chain once it runs: the RPC URL is only known then. */
export function provideX402RpcUrl(rpcUrl: string) {
  const state = holder();
  state.rpcUrl = rpcUrl;
  state.rail = undefined;
  for (const resolve of state.waiting.splice(0)) resolve(rpcUrl);
}

export function x402RpcUrl(): string | undefined {
  return x402Settings().rpcUrl ?? holder().rpcUrl;
}

/** The x402 rail: the configured chain, or the demo chain (waiting for it to start if need be). */
export async function x402Rail(): Promise<X402Rail> {
  const state = holder();
  if (state.rail) return state.rail;
  const settings = x402Settings();
  let rpcUrl = x402RpcUrl();
  if (!rpcUrl) {
    rpcUrl = await Promise.race([
      new Promise<string>((resolve) => state.waiting.push(resolve)),
      new Promise<string>((_, reject) =>
        setTimeout(() => reject(new ChainUnavailableError("the demo chain has not started")), 15_000),
      ),
    ]);
  }
  state.rail = buildRail(rpcUrl, settings.relayerPrivateKey);
  return state.rail;
}
