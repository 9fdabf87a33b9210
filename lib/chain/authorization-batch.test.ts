import { describe, expect, it } from "vitest";
import { AUTHORIZATION_BATCH, compileContract } from "@/scripts/compile-contracts";
import { authorizationBatchAbi } from "./authorization-batch-abi";
import artifact from "./contracts/authorization-batch.json";

describe("AuthorizationBatch artifact", () => {
  it("matches a fresh compile of AuthorizationBatch.sol", () => {
    const { artifact: fresh } = compileContract(AUTHORIZATION_BATCH);
    expect(artifact.sourceSha256).toBe(fresh.sourceSha256);
    expect(artifact.solcVersion).toBe(fresh.solcVersion);
    expect(artifact.bytecode).toBe(fresh.bytecode);
    expect(artifact.deployedBytecode).toBe(fresh.deployedBytecode);
    expect(artifact.abi).toEqual(fresh.abi);
    expect(authorizationBatchAbi).toEqual(fresh.abi);
  }, 60_000);
});
