/**
 * Deploys lib/demo-chain/contracts/AuthorizationBatch.sol on a local chain and submits several signed EIP-3009
 * authorizations through it in one transaction, as anyone holding them could on the real chain.
 */
import { createPublicClient, createWalletClient, type Hex, http, type PrivateKeyAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { authorizationBatchAbi } from "@/lib/demo-chain/authorization-batch-abi";
import artifact from "@/lib/demo-chain/contracts/authorization-batch.json";
import { fundNativeBalance, type TransferAuthorization } from "@/lib/demo-chain/test-token";

export type SignedAuthorization = { message: TransferAuthorization; signature: Hex };

export type AuthorizationBatch = {
  address: `0x${string}`;
  /** Submits the authorizations, in this order, in one transaction; resolves to its mined receipt. */
  submit: (authorizations: SignedAuthorization[]) => Promise<{ hash: Hex; logs: { logIndex: number }[] }>;
};

export async function deployAuthorizationBatch(
  rpcUrl: string,
  token: `0x${string}`,
): Promise<AuthorizationBatch> {
  const submitter: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey());
  await fundNativeBalance(rpcUrl, submitter.address, 10n ** 19n);
  const transport = http(rpcUrl);
  const reader = createPublicClient({ transport, pollingInterval: 100 });
  const wallet = createWalletClient({ account: submitter, transport });
  const deployed = await reader.waitForTransactionReceipt({
    hash: await wallet.deployContract({
      chain: null,
      abi: authorizationBatchAbi,
      bytecode: artifact.bytecode as Hex,
    }),
  });
  const address = deployed.contractAddress;
  if (!address || deployed.status !== "success") throw new Error("AuthorizationBatch did not deploy");
  return {
    address,
    async submit(authorizations) {
      const hash = await wallet.writeContract({
        chain: null,
        address,
        abi: authorizationBatchAbi,
        functionName: "submit",
        args: [token, authorizations.map(({ message, signature }) => ({ ...message, signature }))],
      });
      const receipt = await reader.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`batch ${hash} reverted`);
      return { hash, logs: receipt.logs.map((log) => ({ logIndex: log.logIndex })) };
    },
  };
}
