import { describe, expect, it } from "vitest";
import { compileContract, FORWARDER } from "@/scripts/compile-contracts";
import artifact from "./contracts/forwarder.json";
import { forwarderAbi } from "./forwarder-abi";

describe("Forwarder artifact", () => {
  it("matches a fresh compile of Forwarder.sol", () => {
    const { artifact: fresh } = compileContract(FORWARDER);
    expect(artifact.sourceSha256).toBe(fresh.sourceSha256);
    expect(artifact.solcVersion).toBe(fresh.solcVersion);
    expect(artifact.bytecode).toBe(fresh.bytecode);
    expect(artifact.deployedBytecode).toBe(fresh.deployedBytecode);
    expect(artifact.abi).toEqual(fresh.abi);
    expect(forwarderAbi).toEqual(fresh.abi);
  }, 60_000);
});
