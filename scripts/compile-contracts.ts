/**
 * Compiles the contracts of lib/demo-chain/contracts with the npm `solc` package (offline, no download) and writes,
 * for each,
 *
 *   lib/demo-chain/contracts/<name>.json   { contract, solcVersion, sourceSha256, abi, bytecode, deployedBytecode }
 *   lib/demo-chain/<name>-abi.ts           `export const <name>Abi = [...] as const` for viem's type inference
 *
 * then formats them with Biome so that running it again on an unchanged source changes nothing.
 *
 *   npm run contracts:compile
 *
 * The contracts: TestToken (ERC-20 + EIP-3009), AuthorizationBatch (several authorizations in one
 * transaction), TestSmartWallet (an ERC-1271 contract wallet, honest or gas-burning) and Forwarder (ether passed
 * on by an internal call, as contract wallets pay). Unit tests beside them compile the sources again and fail
 * when a committed artifact has drifted.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import solc from "solc";

const ROOT = path.resolve(import.meta.dirname, "..");

/** A contract to build: its source file, artifact, ABI module and the ABI's export name. */
export type ContractBuild = {
  contract: string;
  sourcePath: string;
  artifactPath: string;
  abiModulePath: string;
  abiExport: string;
};

export const TEST_TOKEN: ContractBuild = {
  contract: "TestToken",
  sourcePath: path.join(ROOT, "lib/demo-chain/contracts/TestToken.sol"),
  artifactPath: path.join(ROOT, "lib/demo-chain/contracts/test-token.json"),
  abiModulePath: path.join(ROOT, "lib/demo-chain/test-token-abi.ts"),
  abiExport: "testTokenAbi",
};

export const AUTHORIZATION_BATCH: ContractBuild = {
  contract: "AuthorizationBatch",
  sourcePath: path.join(ROOT, "lib/demo-chain/contracts/AuthorizationBatch.sol"),
  artifactPath: path.join(ROOT, "lib/demo-chain/contracts/authorization-batch.json"),
  abiModulePath: path.join(ROOT, "lib/demo-chain/authorization-batch-abi.ts"),
  abiExport: "authorizationBatchAbi",
};

export const TEST_SMART_WALLET: ContractBuild = {
  contract: "TestSmartWallet",
  sourcePath: path.join(ROOT, "lib/demo-chain/contracts/TestSmartWallet.sol"),
  artifactPath: path.join(ROOT, "lib/demo-chain/contracts/test-smart-wallet.json"),
  abiModulePath: path.join(ROOT, "lib/demo-chain/test-smart-wallet-abi.ts"),
  abiExport: "testSmartWalletAbi",
};

export const FORWARDER: ContractBuild = {
  contract: "Forwarder",
  sourcePath: path.join(ROOT, "lib/demo-chain/contracts/Forwarder.sol"),
  artifactPath: path.join(ROOT, "lib/demo-chain/contracts/forwarder.json"),
  abiModulePath: path.join(ROOT, "lib/demo-chain/forwarder-abi.ts"),
  abiExport: "forwarderAbi",
};

const CONTRACTS = [TEST_TOKEN, AUTHORIZATION_BATCH, TEST_SMART_WALLET, FORWARDER];

export type AbiItem = Record<string, unknown>;

export type ContractArtifact = {
  contract: string;
  solcVersion: string;
  sourceSha256: string;
  abi: AbiItem[];
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
};

type SolcError = { severity: "error" | "warning" | "info"; formattedMessage?: string; message: string };
type SolcOutput = {
  errors?: SolcError[];
  contracts?: Record<
    string,
    Record<
      string,
      { abi: AbiItem[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }
    >
  >;
};

export type CompileResult = { artifact: ContractArtifact; warnings: string[] };

/** Compiles one contract (optimizer on, 200 runs, EVM version cancun). Throws on compiler errors. */
export function compileContract(
  build: ContractBuild,
  source: string = readFileSync(build.sourcePath, "utf8"),
): CompileResult {
  const CONTRACT = build.contract;
  const SOURCE_KEY = path.basename(build.sourcePath);
  const input = {
    language: "Solidity",
    sources: { [SOURCE_KEY]: { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
      outputSelection: {
        [SOURCE_KEY]: { [CONTRACT]: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] },
      },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const problems = output.errors ?? [];
  const errors = problems.filter((problem) => problem.severity === "error");
  if (errors.length > 0) {
    throw new Error(
      `solc failed to compile ${SOURCE_KEY}:\n${errors.map((e) => e.formattedMessage ?? e.message).join("\n")}`,
    );
  }
  const compiled = output.contracts?.[SOURCE_KEY]?.[CONTRACT];
  if (!compiled) throw new Error(`solc produced no output for ${SOURCE_KEY}:${CONTRACT}`);
  const artifact: ContractArtifact = {
    contract: CONTRACT,
    solcVersion: String(solc.version()),
    sourceSha256: createHash("sha256").update(source).digest("hex"),
    abi: compiled.abi,
    bytecode: `0x${compiled.evm.bytecode.object}`,
    deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
  };
  const warnings = problems
    .filter((problem) => problem.severity !== "error")
    .map((problem) => problem.formattedMessage ?? problem.message);
  return { artifact, warnings };
}

/** The token's build, as the tests and helpers of the test token know it. */
export const compileTestToken = (source?: string): CompileResult => compileContract(TEST_TOKEN, source);

/** The TypeScript module that exports the ABI `as const`, so viem infers function names and argument types. */
export function renderAbiModule(abi: AbiItem[], build: ContractBuild = TEST_TOKEN): string {
  return [
    `// Generated by scripts/compile-contracts.ts from lib/demo-chain/contracts/${path.basename(build.sourcePath)}; do not edit.`,
    "// Run `npm run contracts:compile` after changing the contract.",
    `export const ${build.abiExport} = ${JSON.stringify(abi, null, 2)} as const;`,
    "",
  ].join("\n");
}

function main(): void {
  const biome = path.join(ROOT, "node_modules/.bin/biome");
  for (const build of CONTRACTS) {
    const { artifact, warnings } = compileContract(build);
    for (const warning of warnings) console.warn(warning);
    writeFileSync(build.artifactPath, `${JSON.stringify(artifact, null, 2)}\n`);
    writeFileSync(build.abiModulePath, renderAbiModule(artifact.abi, build));
    execFileSync(biome, ["format", "--write", build.artifactPath, build.abiModulePath], {
      cwd: ROOT,
      stdio: "inherit",
    });
    console.log(
      `${artifact.contract}: solc ${artifact.solcVersion}, source sha256 ${artifact.sourceSha256}, ` +
        `${(artifact.deployedBytecode.length - 2) / 2} bytes of runtime code`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main();
}
