import { describe, expect, it } from "vitest";
import {
  acceptedAsOffered,
  checkPaymentTerms,
  checkPaymentWindow,
  decodePaymentHeader,
  decodePaymentSignatureV2,
  type ExactEvmPayloadV1,
  PaymentHeaderError,
} from "./payload";
import { centsToUsdcUnits, paymentRequiredV2, topupRequirement, toV2Requirement } from "./requirements";

const PAY_TO = "0x2BCCcf425AC35bc15d9A9466e4f3ce0941fC2738" as const;
const requirement = topupRequirement(
  {
    network: "base",
    usdc: { address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", name: "USD Coin", version: "2" },
    maxTimeoutSeconds: 300,
  },
  PAY_TO,
  5000,
  "https://vps.example/api/v1/topups",
);
const NOW = 1_800_000_000;

/** Both checks, in the order the service makes them. */
const checkPayment = (value: ExactEvmPayloadV1, against: typeof requirement, nowSeconds: number) =>
  checkPaymentTerms(value, against) ?? checkPaymentWindow(value, against, nowSeconds);

type Authorization = ExactEvmPayloadV1["payload"]["authorization"];

function payment(overrides: Partial<Record<keyof Authorization, string>> = {}, top = {}): ExactEvmPayloadV1 {
  return {
    x402Version: 1,
    scheme: "exact",
    network: "base",
    ...top,
    payload: {
      signature: `0x${"ab".repeat(65)}`,
      authorization: {
        from: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        to: PAY_TO.toLowerCase() as `0x${string}`,
        value: "50000000",
        validAfter: String(NOW - 600),
        validBefore: String(NOW + 300),
        nonce: `0x${"01".repeat(32)}`,
        ...(overrides as Partial<Authorization>),
      },
    },
  };
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

describe("topupRequirement", () => {
  it("asks for exactly the amount in 6-decimal USDC units", () => {
    expect(centsToUsdcUnits(2500)).toBe(25_000_000n);
    expect(requirement).toMatchObject({
      maxAmountRequired: "50000000",
      payTo: PAY_TO,
      extra: { name: "USD Coin" },
    });
  });
});

describe("checkPayment", () => {
  it("accepts the payment the challenge asked for (payee compared case-insensitively)", () => {
    expect(checkPayment(payment(), requirement, NOW)).toBeUndefined();
  });

  it.each([
    [{ value: "50000001" }, "payment_amount_mismatch"],
    [{ value: "5000000" }, "payment_amount_mismatch"],
    [{ to: "0x0000000000000000000000000000000000000001" }, "payment_recipient_mismatch"],
    [{ validBefore: String(NOW + 5) }, "payment_expired"],
    [{ validAfter: String(NOW + 31) }, "payment_not_yet_valid"],
    [{ validBefore: String(NOW + 331) }, "payment_validity_too_long"],
  ])("refuses %j with %s", (overrides, code) => {
    expect(checkPayment(payment(overrides), requirement, NOW)?.code).toBe(code);
  });

  it("refuses another network or scheme", () => {
    expect(checkPayment(payment({}, { network: "base-sepolia" }), requirement, NOW)?.code).toBe(
      "payment_network_mismatch",
    );
    expect(checkPayment(payment({}, { scheme: "upto" }), requirement, NOW)?.code).toBe(
      "payment_scheme_mismatch",
    );
  });
});

describe("decodePaymentHeader", () => {
  it("decodes a v1 exact EVM payload", () => {
    expect(decodePaymentHeader(encode(payment())).payload.authorization.value).toBe("50000000");
  });

  it.each([
    ["not base64", "%%%"],
    ["not JSON", Buffer.from("nope").toString("base64")],
    ["v2", encode({ ...payment(), x402Version: 2 })],
    ["bad nonce", encode(payment({ nonce: "0x01" }))],
    ["negative value", encode(payment({ value: "-1" }))],
    ["bad address", encode(payment({ from: "0x1234" }))],
    ["too long", "A".repeat(9000)],
  ])("refuses %s", (_name, header) => {
    expect(() => decodePaymentHeader(header)).toThrow(PaymentHeaderError);
  });
});

describe("v2: PAYMENT-SIGNATURE and `accepted`", () => {
  const offered = toV2Requirement(requirement, 8453);
  const v2 = (accepted: Record<string, unknown> = {}) =>
    Buffer.from(
      JSON.stringify({ x402Version: 2, accepted: { ...offered, ...accepted }, payload: payment().payload }),
    ).toString("base64");

  it("offers the same terms as v1 under the CAIP-2 network id, with the resource on top", () => {
    expect(offered).toEqual({
      scheme: "exact",
      network: "eip155:8453",
      amount: "50000000",
      asset: requirement.asset,
      payTo: PAY_TO,
      maxTimeoutSeconds: 300,
      extra: { name: "USD Coin", version: "2" },
    });
    expect(paymentRequiredV2(requirement, 8453, "payment_required")).toMatchObject({
      x402Version: 2,
      error: "payment_required",
      resource: { url: requirement.resource, mimeType: "application/json" },
      accepts: [offered],
    });
  });

  it("an `accepted` equal to the offer becomes the same payment as in v1", () => {
    const checked = acceptedAsOffered(decodePaymentSignatureV2(v2()), offered, "base");
    expect(checked).toEqual({ payment: { ...payment(), x402Version: 1 } });
  });

  it.each([
    [{ amount: "50000001" }, "payment_amount_mismatch"],
    [{ network: "base" }, "payment_network_mismatch"],
    [{ payTo: "0x0000000000000000000000000000000000000001" }, "payment_recipient_mismatch"],
    [{ scheme: "upto" }, "payment_scheme_mismatch"],
    [{ maxTimeoutSeconds: 301 }, "payment_requirements_mismatch"],
    [{ extra: { name: "USDC", version: "2" } }, "payment_requirements_mismatch"],
    [{ asset: "not-an-address" }, "payment_requirements_mismatch"],
  ])("%o is refused as %s", (accepted, code) => {
    const checked = acceptedAsOffered(decodePaymentSignatureV2(v2(accepted)), offered, "base");
    expect(checked).toMatchObject({ rejection: { code } });
  });

  it("a v1 payload is not a v2 payment, and the reverse", () => {
    const v1 = Buffer.from(JSON.stringify(payment())).toString("base64");
    expect(() => decodePaymentSignatureV2(v1)).toThrow(PaymentHeaderError);
    expect(() => decodePaymentHeader(v2())).toThrow(PaymentHeaderError);
  });
});
