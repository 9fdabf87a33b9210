import { describe, expect, it } from "vitest";
import {
  AUTHORIZATION_BATCH,
  compileContract,
  FORWARDER,
  TEST_SMART_WALLET,
} from "@/scripts/compile-contracts";
import { authorizationBatchAbi } from "./authorization-batch-abi";
import authorizationBatch from "./contracts/authorization-batch.json";
import forwarder from "./contracts/forwarder.json";
import testSmartWallet from "./contracts/test-smart-wallet.json";
import { forwarderAbi } from "./forwarder-abi";
import { testSmartWalletAbi } from "./test-smart-wallet-abi";

// The test token's own drift check, with its behaviour, is in test-token.test.ts.
describe.each([
  { build: AUTHORIZATION_BATCH, artifact: authorizationBatch, abi: authorizationBatchAbi },
  { build: TEST_SMART_WALLET, artifact: testSmartWallet, abi: testSmartWalletAbi },
  { build: FORWARDER, artifact: forwarder, abi: forwarderAbi },
] as const)("$build.contract artifact", ({ build, artifact, abi }) => {
  it("matches a fresh compile of its source", () => {
    const { artifact: fresh } = compileContract(build);
    expect(artifact.sourceSha256).toBe(fresh.sourceSha256);
    expect(artifact.solcVersion).toBe(fresh.solcVersion);
    expect(artifact.bytecode).toBe(fresh.bytecode);
    expect(artifact.deployedBytecode).toBe(fresh.deployedBytecode);
    expect(artifact.abi).toEqual(fresh.abi);
    expect(abi).toEqual(fresh.abi);
  }, 60_000);
});
