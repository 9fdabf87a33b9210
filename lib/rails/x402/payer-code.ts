/**
 * Calls that can run a payer's own contract code on the settlement node, always under an explicit gas limit.
 *
 * A contract wallet (ERC-1271) can only say whether it signed an authorization by running its code, and the
 * token runs that same code when it checks the signature in `transferWithAuthorization`. Without a `gas`
 * field a node gives an `eth_call` its own cap (geth: 50M gas, anvil: the 30M block gas limit), so a payer
 * whose `isValidSignature` loops would make the node that every settlement needs burn that much per
 * attempt. With a limit, such a check fails after the limit, in milliseconds, like any invalid signature.
 */
import {
  type Abi,
  BaseError,
  type Client,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  HttpRequestError,
  hashTypedData,
  isErc6492Signature,
  LimitExceededRpcError,
  parseAbi,
  parseErc6492Signature,
  recoverAddress,
  TimeoutError,
  type TypedDataDefinition,
} from "viem";
import { call, getCode } from "viem/actions";

/**
 * Gas for one ERC-1271 `isValidSignature`. Real wallets use a small part of it: a Safe checks one ECDSA
 * signature per required owner through its fallback handler (tens of thousands of gas for a few owners), a
 * Coinbase Smart Wallet one ECDSA or passkey signature (P-256 by Base's RIP-7212 precompile, and about 200k
 * with a Solidity P-256 verifier where there is none). 250k covers those with room, and is what a hostile
 * wallet can make the node spend on one check.
 */
export const SIGNATURE_CHECK_GAS = 250_000n;

/**
 * Gas for the token's `transferWithAuthorization`, both simulated and sent: the token's own work (USDC needs
 * under 100k) plus one signature check under SIGNATURE_CHECK_GAS, with room for the 1/64 of the gas a call
 * keeps back (EIP-150).
 */
export const SETTLEMENT_GAS = 400_000n;

/** A call that runs a payer's code answers in milliseconds under these limits; longer means the node is stuck. */
export const PAYER_CODE_TIMEOUT_MS = 5_000;

const ERC1271_ABI = parseAbi([
  "function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4 magicValue)",
]);
const ERC1271_MAGIC_VALUE = "0x1626ba7e";

/**
 * Whether a failed call means the node could not answer (unreachable, timed out, rate-limited), as opposed
 * to the node running the call and the call failing (a revert, out of gas): only the first leaves the
 * question open.
 */
export function nodeCouldNotAnswer(error: unknown): boolean {
  if (!(error instanceof BaseError)) return true;
  return Boolean(
    error.walk(
      (cause) =>
        cause instanceof HttpRequestError ||
        cause instanceof TimeoutError ||
        cause instanceof LimitExceededRpcError,
    ),
  );
}

/** `readContract` with an explicit gas limit, which viem's own readContract does not take. */
export async function readContractWithGas(
  client: Client,
  request: { address: Hex; abi: Abi | readonly unknown[]; functionName: string; args?: readonly unknown[] },
  gas: bigint,
): Promise<unknown> {
  const abi = request.abi as Abi;
  const data = encodeFunctionData({ abi, functionName: request.functionName, args: request.args ?? [] });
  const { data: result } = await call(client, { to: request.address, data, gas });
  return decodeFunctionResult({ abi, functionName: request.functionName, data: result ?? "0x" });
}

export type PayerSignature =
  /** Signed by the payer: its ECDSA key, or its deployed contract said so within the gas limit. */
  | "valid"
  | "invalid"
  /**
   * An ERC-6492 signature of a wallet that is not deployed yet. Checking it means running the factory the
   * signature names (a deployment, with more gas than a signature check) and settling it means deploying
   * the wallet from our relayer; we do neither: the payer deploys the wallet first.
   */
  | "undeployed_wallet";

/**
 * Checks an EIP-712 signature of `signer`: offline when the ECDSA signature recovers to it, else through
 * ERC-1271 on its deployed contract with SIGNATURE_CHECK_GAS. A wallet that runs out of gas or reverts
 * has not signed; a node that cannot answer throws (nothing is decided).
 */
export async function checkPayerSignature(
  client: Client,
  signer: Hex,
  typedData: TypedDataDefinition,
  signature: Hex,
): Promise<PayerSignature> {
  const wrapped = isErc6492Signature(signature);
  // Once a wallet is deployed, the ERC-6492 wrapper (how to deploy it) is moot: its inner signature counts.
  const inner = wrapped ? parseErc6492Signature(signature).signature : signature;
  const digest = hashTypedData(typedData);
  if (inner.length === 132) {
    const recovered = await recoverAddress({ hash: digest, signature: inner }).catch(() => undefined);
    if (recovered && getAddress(recovered) === getAddress(signer)) return "valid";
  }
  const code = await getCode(client, { address: signer });
  if (!code || code === "0x") {
    if (wrapped) return "undeployed_wallet";
    return "invalid";
  }
  try {
    const answer = await readContractWithGas(
      client,
      { address: signer, abi: ERC1271_ABI, functionName: "isValidSignature", args: [digest, inner] },
      SIGNATURE_CHECK_GAS,
    );
    return typeof answer === "string" && answer.toLowerCase() === ERC1271_MAGIC_VALUE ? "valid" : "invalid";
  } catch (error) {
    if (nodeCouldNotAnswer(error)) throw error;
    return "invalid";
  }
}
