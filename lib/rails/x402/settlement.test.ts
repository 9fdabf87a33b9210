import { encodeAbiParameters, encodeEventTopics, type Hex, type Log } from "viem";
import { describe, expect, it } from "vitest";
import { authorizedTransferIndex, EIP3009_EVENTS } from "./settlement";

const TOKEN = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
const OTHER_TOKEN = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const;
const PAYER = "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045" as const;
const PAY_TO = "0x2BCCcf425AC35bc15d9A9466e4f3ce0941fC2738" as const;
const TX = `0x${"ab".repeat(32)}` as Hex;
const nonce = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;

let index = 0;
function log(address: `0x${string}`, topics: readonly unknown[], data: Hex = "0x"): Log {
  const logIndex = index++;
  return {
    address,
    topics: topics as [Hex, ...Hex[]],
    data,
    logIndex,
    transactionHash: TX,
    transactionIndex: 0,
    blockHash: `0x${"cd".repeat(32)}`,
    blockNumber: 1n,
    removed: false,
  };
}
const used = (n: number, token: `0x${string}` = TOKEN, payer: `0x${string}` = PAYER) =>
  log(
    token,
    encodeEventTopics({
      abi: EIP3009_EVENTS,
      eventName: "AuthorizationUsed",
      args: { authorizer: payer, nonce: nonce(n) },
    }),
  );
const transfer = (value: bigint, to: `0x${string}` = PAY_TO, token: `0x${string}` = TOKEN) =>
  log(
    token,
    encodeEventTopics({ abi: EIP3009_EVENTS, eventName: "Transfer", args: { from: PAYER, to } }),
    encodeAbiParameters([{ type: "uint256" }], [value]),
  );
const noise = () => log(PAY_TO, [`0x${"01".repeat(32)}`]);

const expected = (n: number, value: bigint) => ({
  token: TOKEN,
  payer: PAYER,
  nonce: nonce(n),
  payTo: PAY_TO,
  value,
});

describe("the transfer an authorization made", () => {
  it("is the one right after its own AuthorizationUsed, in a batch of several", () => {
    index = 0;
    // sub-cent first, then 25 USD, then 100 USD: the logs a batch contract leaves.
    const logs = [
      used(1),
      transfer(1n),
      used(2),
      transfer(25_000_000n),
      noise(),
      used(3),
      transfer(100_000_000n),
    ];
    expect(authorizedTransferIndex(logs, expected(1, 1n))).toBe(1);
    expect(authorizedTransferIndex(logs, expected(2, 25_000_000n))).toBe(3);
    expect(authorizedTransferIndex(logs, expected(3, 100_000_000n))).toBe(6);
    // Not the payer's first transfer, whatever nonce is asked about.
    expect(authorizedTransferIndex(logs, expected(2, 1n))).toBeUndefined();
    expect(authorizedTransferIndex(logs, expected(4, 25_000_000n))).toBeUndefined();
  });

  it("must be adjacent, of the same token, to our address, for exactly the authorized value", () => {
    index = 0;
    expect(authorizedTransferIndex([used(1), noise(), transfer(5n)], expected(1, 5n))).toBeUndefined();
    expect(authorizedTransferIndex([transfer(5n), used(1)], expected(1, 5n))).toBeUndefined();
    expect(authorizedTransferIndex([used(1), transfer(5n, PAYER)], expected(1, 5n))).toBeUndefined();
    expect(
      authorizedTransferIndex([used(1), transfer(5n, PAY_TO, OTHER_TOKEN)], expected(1, 5n)),
    ).toBeUndefined();
    expect(authorizedTransferIndex([used(1, OTHER_TOKEN), transfer(5n)], expected(1, 5n))).toBeUndefined();
    expect(authorizedTransferIndex([used(1), transfer(6n)], expected(1, 5n))).toBeUndefined();
    expect(authorizedTransferIndex([used(1, TOKEN, PAY_TO), transfer(5n)], expected(1, 5n))).toBeUndefined();
    index = 0;
    expect(authorizedTransferIndex([used(1), transfer(5n)], expected(1, 5n))).toBe(1);
  });
});
