import type { PaymentPayload, PaymentRequirements, PaymentRequirementsV1 } from "@x402/core/types";
import { authorizationTypes, toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmSchemeV1 as ExactEvmClientV1 } from "@x402/evm/exact/v1/client";
import { ExactEvmSchemeV1 as ExactEvmFacilitatorV1 } from "@x402/evm/exact/v1/facilitator";
import {
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type LocalAccount,
  parseEventLogs,
  parseSignature,
  publicActions,
  toHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileTestToken } from "@/scripts/compile-contracts";
import { type LocalChain, startAnvil } from "./anvil";
import artifact from "./contracts/test-token.json";
import { deployTestSmartWallet, NEVER_BURNS } from "./test-smart-wallet";
import {
  fundNativeBalance,
  installTestToken,
  mintTestToken,
  type TestTokenSpec,
  type TransferAuthorization,
} from "./test-token";
import { testTokenAbi } from "./test-token-abi";

const TIMEOUT = 60_000;
const BASE_CHAIN_ID = 8453;
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const BASE_USDC_DOMAIN_SEPARATOR = "0x02fa7265e7c5d81118673727957699e4d68f74cd74b7db77da710fe8a2c7834f";
const USDC: TestTokenSpec = { name: "USD Coin", version: "2", symbol: "USDC", decimals: 6 };
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const cancelAuthorizationTypes = {
  CancelAuthorization: [
    { name: "authorizer", type: "address" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

let chain: LocalChain;
let viemChain: Chain;
let token: `0x${string}`;
let relayer: LocalAccount;

const publicClient = () =>
  createPublicClient({ chain: viemChain, transport: http(chain.rpcUrl), pollingInterval: 100 });
const relayerClient = () =>
  createWalletClient({
    account: relayer,
    chain: viemChain,
    transport: http(chain.rpcUrl),
    pollingInterval: 100,
  });

async function chainNow(): Promise<bigint> {
  return (await publicClient().getBlock()).timestamp;
}

type Authorization = TransferAuthorization;

async function authorize(
  signer: LocalAccount,
  overrides: Partial<Authorization> & { to: `0x${string}`; value: bigint },
): Promise<{ auth: Authorization; signature: Hex }> {
  const now = await chainNow();
  const auth: Authorization = {
    from: signer.address,
    validAfter: now - 600n,
    validBefore: now + 600n,
    nonce: generatePrivateKey(), // 32 random bytes
    ...overrides,
  };
  const signature = await signer.signTypedData({
    domain: { name: USDC.name, version: USDC.version, chainId: BASE_CHAIN_ID, verifyingContract: token },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: auth,
  });
  return { auth, signature };
}

function vrs(signature: Hex): [number, Hex, Hex] {
  const { v, r, s, yParity } = parseSignature(signature);
  return [v === undefined ? 27 + yParity : Number(v), r, s];
}

function simulateVrs(auth: Authorization, signature: Hex, gas?: bigint) {
  return publicClient().simulateContract({
    account: relayer,
    address: token,
    abi: testTokenAbi,
    functionName: "transferWithAuthorization",
    args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, ...vrs(signature)],
    gas,
  });
}

/** The `bytes signature` overload, as a contract wallet's signature is usually sent. */
function simulateBytes(auth: Authorization, signature: Hex) {
  return publicClient().simulateContract({
    account: relayer,
    address: token,
    abi: testTokenAbi,
    functionName: "transferWithAuthorization",
    args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature],
  });
}

async function balanceOf(address: `0x${string}`): Promise<bigint> {
  return publicClient().readContract({
    address: token,
    abi: testTokenAbi,
    functionName: "balanceOf",
    args: [address],
  });
}

async function funded(): Promise<LocalAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await mintTestToken(chain.rpcUrl, token, account.address, 100_000_000n);
  return account;
}

beforeAll(async () => {
  chain = await startAnvil({ chainId: BASE_CHAIN_ID });
  viemChain = defineChain({
    id: BASE_CHAIN_ID,
    name: "local base",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });
  token = await installTestToken(chain.rpcUrl, USDC, { at: BASE_USDC });
  relayer = privateKeyToAccount(generatePrivateKey());
  await fundNativeBalance(chain.rpcUrl, relayer.address, 10n ** 18n);
}, TIMEOUT);

afterAll(async () => {
  await chain?.stop();
});

describe("TestToken artifact", () => {
  it(
    "matches a fresh compile of TestToken.sol",
    () => {
      const { artifact: fresh } = compileTestToken();
      expect(artifact.sourceSha256).toBe(fresh.sourceSha256);
      expect(artifact.solcVersion).toBe(fresh.solcVersion);
      expect(artifact.bytecode).toBe(fresh.bytecode);
      expect(artifact.deployedBytecode).toBe(fresh.deployedBytecode);
      expect(artifact.abi).toEqual(fresh.abi);
      expect(testTokenAbi).toEqual(fresh.abi);
    },
    TIMEOUT,
  );
});

describe("installTestToken", () => {
  it("places the token at the Base USDC address with the real USDC domain separator", async () => {
    const client = publicClient();
    expect(token).toBe(BASE_USDC);
    const read = <F extends "name" | "version" | "symbol" | "decimals" | "DOMAIN_SEPARATOR">(
      functionName: F,
    ) => client.readContract({ address: token, abi: testTokenAbi, functionName });
    expect(await read("name")).toBe("USD Coin");
    expect(await read("version")).toBe("2");
    expect(await read("symbol")).toBe("USDC");
    expect(await read("decimals")).toBe(6);
    expect(await read("DOMAIN_SEPARATOR")).toBe(BASE_USDC_DOMAIN_SEPARATOR);
  });

  it(
    "is idempotent at a fixed address and refuses a different spec there",
    async () => {
      await expect(installTestToken(chain.rpcUrl, USDC, { at: BASE_USDC })).resolves.toBe(BASE_USDC);
      await expect(
        installTestToken(chain.rpcUrl, { ...USDC, version: "1" }, { at: BASE_USDC }),
      ).rejects.toThrow(/already initialized/);
    },
    TIMEOUT,
  );

  it(
    "deploys a fresh token without `at`",
    async () => {
      const spec = { name: "Test Dollar", version: "1", symbol: "TUSD", decimals: 18 };
      const address = await installTestToken(chain.rpcUrl, spec);
      expect(address).not.toBe(BASE_USDC);
      const client = publicClient();
      expect(await client.readContract({ address, abi: testTokenAbi, functionName: "symbol" })).toBe("TUSD");
      expect(await client.readContract({ address, abi: testTokenAbi, functionName: "decimals" })).toBe(18);
      const holder = privateKeyToAccount(generatePrivateKey()).address;
      await mintTestToken(chain.rpcUrl, address, holder, 5n);
      expect(
        await client.readContract({ address, abi: testTokenAbi, functionName: "balanceOf", args: [holder] }),
      ).toBe(5n);
    },
    TIMEOUT,
  );
});

describe("EIP-3009", () => {
  it(
    "transferWithAuthorization (v, r, s) moves the tokens, emits Transfer and AuthorizationUsed, and cannot be replayed",
    async () => {
      const payer = await funded();
      const payee = privateKeyToAccount(generatePrivateKey()).address;
      const { auth, signature } = await authorize(payer, { to: payee, value: 1_500_000n });
      const client = publicClient();
      expect(
        await client.readContract({
          address: token,
          abi: testTokenAbi,
          functionName: "authorizationState",
          args: [payer.address, auth.nonce],
        }),
      ).toBe(false);

      const { request } = await simulateVrs(auth, signature);
      const hash = await relayerClient().writeContract(request);
      const receipt = await client.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      const events = parseEventLogs({ abi: testTokenAbi, logs: receipt.logs });
      expect(events.map((e) => e.eventName)).toEqual(["AuthorizationUsed", "Transfer"]);
      expect(events).toContainEqual(
        expect.objectContaining({
          eventName: "AuthorizationUsed",
          args: { authorizer: payer.address, nonce: auth.nonce },
        }),
      );
      expect(events).toContainEqual(
        expect.objectContaining({
          eventName: "Transfer",
          args: { from: payer.address, to: payee, value: 1_500_000n },
        }),
      );
      expect(await balanceOf(payee)).toBe(1_500_000n);
      expect(await balanceOf(payer.address)).toBe(98_500_000n);
      expect(
        await client.readContract({
          address: token,
          abi: testTokenAbi,
          functionName: "authorizationState",
          args: [payer.address, auth.nonce],
        }),
      ).toBe(true);

      await expect(simulateVrs(auth, signature)).rejects.toThrow(/authorization is used or canceled/);
    },
    TIMEOUT,
  );

  it(
    "transferWithAuthorization (bytes signature) moves the tokens and emits Transfer and AuthorizationUsed",
    async () => {
      const payer = await funded();
      const payee = privateKeyToAccount(generatePrivateKey()).address;
      const { auth, signature } = await authorize(payer, { to: payee, value: 2_000_000n });
      const client = publicClient();
      const { request } = await simulateBytes(auth, signature);
      const receipt = await client.waitForTransactionReceipt({
        hash: await relayerClient().writeContract(request),
      });
      expect(receipt.status).toBe("success");
      const events = parseEventLogs({ abi: testTokenAbi, logs: receipt.logs });
      expect(events.map((e) => e.eventName)).toEqual(["AuthorizationUsed", "Transfer"]);
      expect(await balanceOf(payee)).toBe(2_000_000n);
      await expect(simulateBytes(auth, signature)).rejects.toThrow(/authorization is used or canceled/);
    },
    TIMEOUT,
  );

  it(
    "rejects expired and not-yet-valid windows, foreign signers and high-s signatures",
    async () => {
      const payer = await funded();
      const payee = privateKeyToAccount(generatePrivateKey()).address;
      const now = await chainNow();

      const expired = await authorize(payer, { to: payee, value: 1n, validBefore: now - 1n });
      await expect(simulateVrs(expired.auth, expired.signature)).rejects.toThrow(/authorization is expired/);

      const early = await authorize(payer, { to: payee, value: 1n, validAfter: now + 3_600n });
      await expect(simulateVrs(early.auth, early.signature)).rejects.toThrow(
        /authorization is not yet valid/,
      );

      const stranger = privateKeyToAccount(generatePrivateKey());
      const forged = await authorize(stranger, { from: payer.address, to: payee, value: 1n });
      await expect(simulateVrs(forged.auth, forged.signature)).rejects.toThrow(/invalid signature/);

      // The same signature with s mirrored into the upper half of the curve order (still recoverable) is refused.
      const good = await authorize(payer, { to: payee, value: 1n });
      const { r, s, yParity } = parseSignature(good.signature);
      const highS = toHex(SECP256K1_N - BigInt(s), { size: 32 });
      const mirroredV = yParity === 0 ? 28 : 27;
      await expect(
        publicClient().simulateContract({
          account: relayer,
          address: token,
          abi: testTokenAbi,
          functionName: "transferWithAuthorization",
          args: [
            good.auth.from,
            good.auth.to,
            good.auth.value,
            good.auth.validAfter,
            good.auth.validBefore,
            good.auth.nonce,
            mirroredV,
            r,
            highS,
          ],
        }),
      ).rejects.toThrow(/invalid signature 's' value/);
      // ...while the original is fine.
      await expect(simulateVrs(good.auth, good.signature)).resolves.toBeDefined();
      expect(await balanceOf(payee)).toBe(0n);
    },
    TIMEOUT,
  );

  it(
    "cancelAuthorization burns the nonce and emits AuthorizationCanceled",
    async () => {
      const payer = await funded();
      const payee = privateKeyToAccount(generatePrivateKey()).address;
      const { auth, signature } = await authorize(payer, { to: payee, value: 1n });
      const cancelSignature = await payer.signTypedData({
        domain: { name: USDC.name, version: USDC.version, chainId: BASE_CHAIN_ID, verifyingContract: token },
        types: cancelAuthorizationTypes,
        primaryType: "CancelAuthorization",
        message: { authorizer: payer.address, nonce: auth.nonce },
      });
      const client = publicClient();
      const { request } = await client.simulateContract({
        account: relayer,
        address: token,
        abi: testTokenAbi,
        functionName: "cancelAuthorization",
        args: [payer.address, auth.nonce, ...vrs(cancelSignature)],
      });
      const receipt = await client.waitForTransactionReceipt({
        hash: await relayerClient().writeContract(request),
      });
      const events = parseEventLogs({ abi: testTokenAbi, logs: receipt.logs });
      expect(events).toEqual([
        expect.objectContaining({
          eventName: "AuthorizationCanceled",
          args: { authorizer: payer.address, nonce: auth.nonce },
        }),
      ]);
      await expect(simulateVrs(auth, signature)).rejects.toThrow(/authorization is used or canceled/);
    },
    TIMEOUT,
  );
});

describe("contract-wallet authorizers (ERC-1271), as in FiatToken v2.2", () => {
  it(
    "a wallet's owner signs for it: both overloads settle; a stranger's signature and a gas-burning wallet are refused",
    async () => {
      const owner = privateKeyToAccount(generatePrivateKey());
      const wallet = await deployTestSmartWallet(chain.rpcUrl, owner.address, NEVER_BURNS);
      await mintTestToken(chain.rpcUrl, token, wallet, 10_000_000n);
      const payee = privateKeyToAccount(generatePrivateKey()).address;

      const first = await authorize(owner, { from: wallet, to: payee, value: 1_000_000n });
      const { request } = await simulateVrs(first.auth, first.signature);
      const hash = await relayerClient().writeContract(request);
      expect((await publicClient().waitForTransactionReceipt({ hash })).status).toBe("success");

      const second = await authorize(owner, { from: wallet, to: payee, value: 2_000_000n });
      const bytesRequest = await simulateBytes(second.auth, second.signature);
      const bytesHash = await relayerClient().writeContract(bytesRequest.request);
      expect((await publicClient().waitForTransactionReceipt({ hash: bytesHash })).status).toBe("success");
      expect(await balanceOf(payee)).toBe(3_000_000n);
      expect(await balanceOf(wallet)).toBe(7_000_000n);

      const stranger = privateKeyToAccount(generatePrivateKey());
      const forged = await authorize(stranger, { from: wallet, to: payee, value: 1_000_000n });
      await expect(simulateVrs(forged.auth, forged.signature)).rejects.toThrow(/invalid signature/);

      const burner = await deployTestSmartWallet(chain.rpcUrl, owner.address, 0n);
      await mintTestToken(chain.rpcUrl, token, burner, 10_000_000n);
      const burnt = await authorize(owner, { from: burner, to: payee, value: 1_000_000n });
      await expect(simulateVrs(burnt.auth, burnt.signature, 400_000n)).rejects.toThrow(/invalid signature/);
    },
    TIMEOUT,
  );
});

describe("x402 exact v1 settlement", () => {
  it(
    "verifies and settles a payload built by the official client through the official facilitator",
    async () => {
      const payer = await funded();
      const payTo = privateKeyToAccount(generatePrivateKey()).address;
      const requirementsV1: Omit<PaymentRequirementsV1, "outputSchema" | "network"> & { network: string } = {
        scheme: "exact",
        network: "base",
        maxAmountRequired: "5000000",
        resource: "http://127.0.0.1/x",
        description: "t",
        mimeType: "application/json",
        payTo,
        maxTimeoutSeconds: 300,
        asset: token,
        extra: { name: "USD Coin", version: "2" },
      };
      // The v1 schemes are typed with the v2 shapes; at run time they read the v1 fields.
      const requirements = requirementsV1 as unknown as PaymentRequirements;

      const client = new ExactEvmClientV1(payer);
      const payload = (await client.createPaymentPayload(1, requirements)) as unknown as PaymentPayload;

      const relayerWallet = relayerClient().extend(publicActions);
      const facilitator = new ExactEvmFacilitatorV1(
        toFacilitatorEvmSigner({
          address: relayer.address,
          readContract: (args) => relayerWallet.readContract(args),
          verifyTypedData: (args) =>
            relayerWallet.verifyTypedData(args as Parameters<typeof relayerWallet.verifyTypedData>[0]),
          writeContract: (args) =>
            relayerWallet.writeContract(args as Parameters<typeof relayerWallet.writeContract>[0]),
          sendTransaction: (args) => relayerWallet.sendTransaction(args),
          waitForTransactionReceipt: (args) => relayerWallet.waitForTransactionReceipt(args),
          getCode: (args) => relayerWallet.getCode(args),
        }),
      );

      const verified = await facilitator.verify(payload, requirements);
      expect(verified).toMatchObject({ isValid: true, payer: payer.address });

      const settled = await facilitator.settle(payload, requirements);
      expect(settled).toMatchObject({ success: true, network: "base", payer: payer.address });
      expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await balanceOf(payTo)).toBe(5_000_000n);
      expect(await balanceOf(payer.address)).toBe(95_000_000n);

      // Failures. On this chain there is no Multicall3 (0xcA11bde05977b3631167028862bE2a173976CA11), which the
      // facilitator's failure diagnosis reads through, so every failed simulation reports the generic reason.
      const simulationFailed = {
        isValid: false,
        invalidReason: "invalid_exact_evm_transaction_simulation_failed",
      };

      // The same payload again: the nonce is spent.
      expect(await facilitator.verify(payload, requirements)).toMatchObject(simulationFailed);
      // settle() does not simulate by default: the write fails in gas estimation, and the v1 scheme returns
      // viem's whole error message as errorReason (not a code).
      const replayed = await facilitator.settle(payload, requirements);
      expect(replayed).toMatchObject({ success: false, transaction: "" });
      expect(replayed.errorReason).toMatch(
        /reverted with the following reason:\nauthorization is used or canceled/,
      );

      // A domain version that differs from the token's: the client signs it, the on-chain simulation refuses it.
      const wrongVersion = {
        ...requirementsV1,
        extra: { name: "USD Coin", version: "1" },
      } as unknown as PaymentRequirements;
      const wrongPayload = (await client.createPaymentPayload(1, wrongVersion)) as unknown as PaymentPayload;
      expect(await facilitator.verify(wrongPayload, wrongVersion)).toMatchObject(simulationFailed);

      // A payer without enough tokens.
      const poor = new ExactEvmClientV1(privateKeyToAccount(generatePrivateKey()));
      const poorPayload = (await poor.createPaymentPayload(1, requirements)) as unknown as PaymentPayload;
      expect(await facilitator.verify(poorPayload, requirements)).toMatchObject(simulationFailed);
    },
    TIMEOUT,
  );
});
