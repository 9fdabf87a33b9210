import { describe, expect, it } from "vitest";
import { qrDataUri } from "@/lib/util/qr";
import { type PaymentRequest, paymentUri } from "./payment-uri";

const BTC_ADDRESS = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu";
const LTC_ADDRESS = "ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh";
const ETH_ADDRESS = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
const TRON_ADDRESS = "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH";
const XMR_ADDRESS =
  "84QRUYawRNrU3NN1VpFRndSukeyEb3Xpv8qZjjsoJZnTYpDYceuUTpog13D7qPxpviS7J29bSgSkR11hFFoXWk2yNdsR9WF";
const USDT_ERC20 = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
const USDT_TRC20 = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

describe("paymentUri", () => {
  it("writes BIP21 for bitcoin and litecoin", () => {
    expect(
      paymentUri({ coin: "BTC", address: BTC_ADDRESS, amount: "0.00150000", amountUnits: 150_000n }),
    ).toBe(`bitcoin:${BTC_ADDRESS}?amount=0.00150000`);
    expect(paymentUri({ coin: "LTC", address: LTC_ADDRESS, amount: "1.25", amountUnits: 125_000_000n })).toBe(
      `litecoin:${LTC_ADDRESS}?amount=1.25`,
    );
  });

  it("writes the Monero URI with tx_amount", () => {
    expect(
      paymentUri({ coin: "XMR", address: XMR_ADDRESS, amount: "0.12345678", amountUnits: 123_456_780_000n }),
    ).toBe(`monero:${XMR_ADDRESS}?tx_amount=0.12345678`);
  });

  it("writes EIP-681 for ether, in wei, with the chain id", () => {
    const request: PaymentRequest = {
      coin: "ETH",
      address: ETH_ADDRESS,
      amount: "0.01000000",
      amountUnits: 10_000_000_000_000_000n,
    };
    expect(paymentUri(request)).toBe(`ethereum:${ETH_ADDRESS}@1?value=10000000000000000`);
    expect(paymentUri({ ...request, chainId: 31337 })).toBe(
      `ethereum:${ETH_ADDRESS}@31337?value=10000000000000000`,
    );
  });

  it("writes an EIP-681 ERC-20 transfer for USDT", () => {
    expect(
      paymentUri({
        coin: "USDT",
        address: ETH_ADDRESS,
        amount: "25.50",
        amountUnits: 25_500_000n,
        tokenContract: USDT_ERC20,
      }),
    ).toBe(`ethereum:${USDT_ERC20}@1/transfer?address=${ETH_ADDRESS}&uint256=25500000`);
  });

  it("writes the common tron: form for TRC-20 USDT", () => {
    expect(
      paymentUri({
        coin: "USDTTRC",
        address: TRON_ADDRESS,
        amount: "25.50",
        amountUnits: 25_500_000n,
        tokenContract: USDT_TRC20,
      }),
    ).toBe(`tron:${TRON_ADDRESS}?amount=25.50&token=${USDT_TRC20}`);
  });

  it("refuses inconsistent requests", () => {
    const base: PaymentRequest = {
      coin: "BTC",
      address: BTC_ADDRESS,
      amount: "0.0015",
      amountUnits: 150_000n,
    };
    expect(() => paymentUri({ ...base, amountUnits: 150_001n })).toThrow(RangeError);
    expect(() => paymentUri({ ...base, amount: "0.000000001", amountUnits: 0n })).toThrow(RangeError);
    expect(() => paymentUri({ ...base, amount: "1e-3" })).toThrow(RangeError);
    expect(() => paymentUri({ ...base, address: `${BTC_ADDRESS}&amount=9` })).toThrow(RangeError);
    expect(() => paymentUri({ ...base, coin: "USDT", amount: "0.15", amountUnits: 150_000n })).toThrow(
      /token contract/,
    );
    expect(() =>
      paymentUri({ coin: "ETH", address: ETH_ADDRESS, amount: "1", amountUnits: 10n ** 18n, chainId: 0 }),
    ).toThrow(RangeError);
  });
});

describe("qrDataUri", () => {
  it("renders a PNG data URI", async () => {
    const uri = await qrDataUri(`bitcoin:${BTC_ADDRESS}?amount=0.00150000`);
    const prefix = "data:image/png;base64,";
    expect(uri.startsWith(prefix)).toBe(true);
    const png = Buffer.from(uri.slice(prefix.length), "base64");
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // IHDR: width and height (big-endian) at bytes 16..24.
    expect(png.readUInt32BE(16)).toBe(256);
    expect(png.readUInt32BE(20)).toBe(256);
  });
});
