/**
 * Installs and funds the EIP-3009 test token (lib/demo-chain/contracts/TestToken.sol) on a local anvil chain.
 * Only for anvil: it relies on `anvil_setCode`, `anvil_setBalance` and `anvil_impersonateAccount`, and sends
 * every transaction from a fixed impersonated helper address, so no private key is involved.
 */
import {
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  keccak256,
  slice,
  toHex,
} from "viem";
import artifact from "./contracts/test-token.json";
import { testTokenAbi } from "./test-token-abi";

export type TestTokenSpec = { name: string; version: string; symbol: string; decimals: number };

/** An EIP-3009 `TransferWithAuthorization` message, as a payer signs it. */
export type TransferAuthorization = {
  from: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
};

type Address = `0x${string}`;

/** Sender of the helper transactions: impersonated and given ether on demand, nobody holds its key. */
export const TEST_TOKEN_HELPER_ADDRESS: Address = getAddress(
  slice(keccak256(toHex("vps-service test token helper")), 12),
);

const HELPER_BALANCE_WEI = 10n ** 21n; // 1000 ether
const POLLING_INTERVAL_MS = 100;
const RECEIPT_TIMEOUT_MS = 30_000;

/** Runtime code (what `anvil_setCode` places) and creation code of the committed build. */
export const testTokenDeployedBytecode = artifact.deployedBytecode as Hex;
export const testTokenBytecode = artifact.bytecode as Hex;

async function clients(rpcUrl: string) {
  const transport = http(rpcUrl);
  const chainId = await createPublicClient({ transport }).getChainId();
  const chain: Chain = defineChain({
    id: chainId,
    name: `local-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: POLLING_INTERVAL_MS });
  const testClient = createTestClient({
    mode: "anvil",
    chain,
    transport,
    pollingInterval: POLLING_INTERVAL_MS,
  });
  const walletClient = createWalletClient({
    account: TEST_TOKEN_HELPER_ADDRESS,
    chain,
    transport,
    pollingInterval: POLLING_INTERVAL_MS,
  });
  return { publicClient, testClient, walletClient };
}

type Clients = Awaited<ReturnType<typeof clients>>;

async function prepareHelper({ testClient }: Clients): Promise<void> {
  await testClient.impersonateAccount({ address: TEST_TOKEN_HELPER_ADDRESS });
  await testClient.setBalance({ address: TEST_TOKEN_HELPER_ADDRESS, value: HELPER_BALANCE_WEI });
}

async function confirm({ publicClient }: Clients, hash: Hex, what: string) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
  if (receipt.status !== "success") throw new Error(`${what}: transaction ${hash} reverted`);
  return receipt;
}

async function readSpec({ publicClient }: Clients, token: Address): Promise<TestTokenSpec> {
  const read = <F extends "name" | "version" | "symbol" | "decimals">(functionName: F) =>
    publicClient.readContract({ address: token, abi: testTokenAbi, functionName });
  const [name, version, symbol, decimals] = await Promise.all([
    read("name"),
    read("version"),
    read("symbol"),
    read("decimals"),
  ]);
  return { name, version, symbol, decimals };
}

async function initialize(c: Clients, token: Address, spec: TestTokenSpec): Promise<void> {
  const hash = await c.walletClient.writeContract({
    address: token,
    abi: testTokenAbi,
    functionName: "initialize",
    args: [spec.name, spec.version, spec.symbol, spec.decimals],
  });
  await confirm(c, hash, `initialize test token at ${token}`);
}

function validateSpec(spec: TestTokenSpec): void {
  if (!spec.name) throw new Error("test token name must not be empty");
  if (!Number.isInteger(spec.decimals) || spec.decimals < 0 || spec.decimals > 255) {
    throw new Error(`test token decimals must be an integer 0..255, got ${spec.decimals}`);
  }
}

/**
 * Puts the test token on the chain and returns its address.
 *
 * With `at`, the runtime code is placed there with `anvil_setCode` (constructors do not run, the token has
 * none) and `initialize` is sent unless the token is already set up with this spec, as on a chain restored
 * from `--state`; a token already set up with a different spec is an error. Without `at`, the creation code
 * is deployed from the helper address and initialized.
 */
export async function installTestToken(
  rpcUrl: string,
  spec: TestTokenSpec,
  options: { at?: Address } = {},
): Promise<Address> {
  validateSpec(spec);
  const c = await clients(rpcUrl);
  await prepareHelper(c);

  if (options.at) {
    const token = getAddress(options.at);
    await c.testClient.setCode({ address: token, bytecode: testTokenDeployedBytecode });
    const current = await readSpec(c, token);
    if (current.name === "") {
      await initialize(c, token, spec);
    } else if (
      current.name !== spec.name ||
      current.version !== spec.version ||
      current.symbol !== spec.symbol ||
      current.decimals !== spec.decimals
    ) {
      throw new Error(
        `test token at ${token} is already initialized as ${JSON.stringify(current)}, not ${JSON.stringify(spec)}`,
      );
    }
    return token;
  }

  const hash = await c.walletClient.deployContract({ abi: testTokenAbi, bytecode: testTokenBytecode });
  const receipt = await confirm(c, hash, "deploy test token");
  if (!receipt.contractAddress)
    throw new Error(`deploy test token: receipt of ${hash} has no contract address`);
  const token = getAddress(receipt.contractAddress);
  await initialize(c, token, spec);
  return token;
}

/** Mints `amount` base units of the test token to `to` and waits for the receipt. */
export async function mintTestToken(
  rpcUrl: string,
  token: Address,
  to: Address,
  amount: bigint,
): Promise<void> {
  const c = await clients(rpcUrl);
  await prepareHelper(c);
  const hash = await c.walletClient.writeContract({
    address: token,
    abi: testTokenAbi,
    functionName: "mint",
    args: [to, amount],
  });
  await confirm(c, hash, `mint ${amount} of ${token} to ${to}`);
}

/** Sets the native (gas) balance of `address` to `wei` with `anvil_setBalance`. */
export async function fundNativeBalance(rpcUrl: string, address: Address, wei: bigint): Promise<void> {
  const { testClient } = await clients(rpcUrl);
  await testClient.setBalance({ address, value: wei });
}
