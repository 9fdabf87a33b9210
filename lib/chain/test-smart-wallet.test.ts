import { describe, expect, it } from "vitest";
import { compileContract, TEST_SMART_WALLET } from "@/scripts/compile-contracts";
import artifact from "./contracts/test-smart-wallet.json";
import { testSmartWalletAbi } from "./test-smart-wallet-abi";

describe("TestSmartWallet artifact", () => {
  it("matches a fresh compile of TestSmartWallet.sol", () => {
    const { artifact: fresh } = compileContract(TEST_SMART_WALLET);
    expect(artifact.sourceSha256).toBe(fresh.sourceSha256);
    expect(artifact.solcVersion).toBe(fresh.solcVersion);
    expect(artifact.bytecode).toBe(fresh.bytecode);
    expect(artifact.deployedBytecode).toBe(fresh.deployedBytecode);
    expect(artifact.abi).toEqual(fresh.abi);
    expect(testSmartWalletAbi).toEqual(fresh.abi);
  }, 60_000);
});
