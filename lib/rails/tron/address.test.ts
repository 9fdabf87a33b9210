import { describe, expect, it } from "vitest";
import { evmHexToTron, tronConfirmations, tronToEvmHex } from "./address";

describe("TRON base58check addresses <-> hex", () => {
  it("Tether's USDT TRC-20 contract, as TRONSCAN shows it in both forms", () => {
    expect(tronToEvmHex("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toBe(
      "0xa614f803b6fd780986a42c78ec9c7f77e6ded13c",
    );
    expect(evmHexToTron("41a614f803b6fd780986a42c78ec9c7f77e6ded13c")).toBe(
      "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    );
    expect(evmHexToTron("0xA614F803B6FD780986A42C78EC9C7F77E6DED13C")).toBe(
      "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    );
  });

  it("the zero address (the network's burn address T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb)", () => {
    expect(tronToEvmHex("T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb")).toBe(`0x${"0".repeat(40)}`);
    expect(evmHexToTron(`0x${"0".repeat(40)}`)).toBe("T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb");
  });

  it("refuses a bad checksum, another prefix and short hex", () => {
    expect(() => tronToEvmHex("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u")).toThrow(RangeError);
    // A Bitcoin P2PKH address is valid base58check, but prefix 0x00, not TRON's 0x41.
    expect(() => tronToEvmHex("1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA")).toThrow(/0x41/);
    expect(() => evmHexToTron("0x1234")).toThrow(RangeError);
  });
});

describe("tronConfirmations", () => {
  it("counts a solidified block fully and holds an unsolidified one below the target", () => {
    expect(tronConfirmations({ block: 100, head: 130, solidified: 110, required: 19 })).toBe(31);
    expect(tronConfirmations({ block: 100, head: 101, solidified: 100, required: 19 })).toBe(19);
    expect(tronConfirmations({ block: 120, head: 150, solidified: 110, required: 19 })).toBe(18);
  });

  it("without a solidity node, counts from the head", () => {
    expect(tronConfirmations({ block: 100, head: 118, solidified: undefined, required: 19 })).toBe(19);
    expect(tronConfirmations({ block: 100, head: 99, solidified: undefined, required: 19 })).toBe(0);
  });
});
