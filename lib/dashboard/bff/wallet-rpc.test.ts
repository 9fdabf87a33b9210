import { describe, expect, it } from "vitest";
import { checkWalletRpcBody, checkWalletRpcCall, type RpcCall, WALLET_CALL_GAS_CAP } from "./wallet-rpc";

const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
const HOLDER = "d8da6bf26964af9d7eed9e03e53415d37aa96045";
const BALANCE_OF = `0x70a08231${"00".repeat(12)}${HOLDER}`;
const call = (params: unknown[], method = "eth_call"): RpcCall => ({ jsonrpc: "2.0", id: 7, method, params });
const refusalOf = (checked: ReturnType<typeof checkWalletRpcCall>) =>
  "refusal" in checked ? checked.refusal : undefined;

describe("the wallet RPC's allowed shapes", () => {
  it("forwards the page's balanceOf read rebuilt on latest, with the gas cap", () => {
    expect(checkWalletRpcCall(call([{ to: USDC.toLowerCase(), data: BALANCE_OF }, "latest"]), USDC)).toEqual({
      forward: {
        jsonrpc: "2.0",
        id: 7,
        method: "eth_call",
        params: [{ to: USDC, data: BALANCE_OF, gas: `0x${WALLET_CALL_GAS_CAP.toString(16)}` }, "latest"],
      },
    });
    // viem's `input` spelling, a `from`, no block, and a smaller gas are the same read.
    const forwarded = checkWalletRpcCall(
      call([{ to: USDC, input: BALANCE_OF, from: `0x${HOLDER}`, gas: "0x7530" }]),
      USDC,
    );
    expect(forwarded).toEqual({
      forward: expect.objectContaining({ params: [{ to: USDC, data: BALANCE_OF, gas: "0x7530" }, "latest"] }),
    });
  });

  it("forwards parameterless reads without parameters", () => {
    for (const method of ["eth_chainId", "net_version", "eth_blockNumber"]) {
      expect(checkWalletRpcCall({ jsonrpc: "2.0", id: "a", method }, USDC)).toEqual({
        forward: { jsonrpc: "2.0", id: "a", method, params: [] },
      });
    }
    expect(refusalOf(checkWalletRpcCall(call(["0x1"], "eth_blockNumber"), USDC))).toMatch(/no parameters/);
  });

  it.each([
    ["a state override", [{ to: USDC, data: BALANCE_OF }, "latest", { [USDC]: { code: "0x5b600056" } }]],
    ["a block override", [{ to: USDC, data: BALANCE_OF }, "latest", {}, { number: "0x1" }]],
    ["an old block", [{ to: USDC, data: BALANCE_OF }, "0x1"]],
    ["a block hash", [{ to: USDC, data: BALANCE_OF }, { blockHash: `0x${"11".repeat(32)}` }]],
    ["pending", [{ to: USDC, data: BALANCE_OF }, "pending"]],
    ["a gas above the cap", [{ to: USDC, data: BALANCE_OF, gas: "0x1c9c380" }, "latest"]],
    ["a malformed gas", [{ to: USDC, data: BALANCE_OF, gas: 30_000_000 }, "latest"]],
    ["another contract", [{ to: `0x${HOLDER}`, data: BALANCE_OF }, "latest"]],
    ["another function", [{ to: USDC, data: `0xa9059cbb${"00".repeat(64)}` }, "latest"]],
    ["trailing calldata", [{ to: USDC, data: `${BALANCE_OF}00` }, "latest"]],
    ["a value", [{ to: USDC, data: BALANCE_OF, value: "0x1" }, "latest"]],
    ["a gas price", [{ to: USDC, data: BALANCE_OF, gasPrice: "0x1" }, "latest"]],
    ["differing data and input", [{ to: USDC, data: BALANCE_OF, input: `0x70a08231${"00".repeat(32)}` }]],
    ["no call object", ["latest"]],
  ])("refuses eth_call with %s", (_name, params) => {
    expect(refusalOf(checkWalletRpcCall(call(params), USDC))).toBeTruthy();
  });

  it("refuses methods the page does not use, and a whole batch for one of them", () => {
    expect(refusalOf(checkWalletRpcCall(call([], "eth_estimateGas"), USDC))).toMatch(/not one of the reads/);
    expect(refusalOf(checkWalletRpcCall(call(["0x00"], "eth_sendRawTransaction"), USDC))).toBeTruthy();
    const batch = checkWalletRpcBody(
      [call([], "eth_chainId"), call([{ to: USDC, data: BALANCE_OF }, "latest", {}])],
      USDC,
    );
    expect(batch).toEqual({ refusal: expect.stringMatching(/overrides/) });
  });
});
