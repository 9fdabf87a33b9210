import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";
import { TOPUP_MAX_CENTS, TOPUP_MIN_CENTS } from "@/lib/catalog/topup-limits";
import { COINS, DEFAULT_COIN, NETWORKS } from "@/lib/rails/registry";
import type { X402Requirement as RailRequirement } from "@/lib/rails/x402/requirements";
import { nextCursorField, timestamp } from "./common";

const COIN_CODES = COINS.map((coin) => coin.code) as [string, ...string[]];

export const CreateTopupRequestSchema = z
  .strictObject({
    amount: z
      .number()
      .min(TOPUP_MIN_CENTS / 100)
      .max(TOPUP_MAX_CENTS / 100)
      .meta({ description: "USD to add to the balance: 25 to 2000, whole cents.", example: 50 }),
    coin: z
      .enum(COIN_CODES)
      .default(DEFAULT_COIN)
      .meta({ description: `How to pay. Default \`${DEFAULT_COIN}\`.`, example: "BTC" }),
  })
  .meta({ id: "CreateTopupRequest" });

export const CreateTopupBody = requestBody(CreateTopupRequestSchema, {
  amount: { code: "invalid_amount", byIssue: { too_small: "amount_too_low", too_big: "amount_too_high" } },
  coin: "invalid_coin",
});

export const CreditedPartSchema = z
  .object({
    kind: z.enum(["quote", "excess", "late"]).meta({
      description:
        "`quote`: paid the asked amount while the quote held, at the locked rate (the asked amount in full " +
        "credits exactly `amount_usd`). `excess`: beyond the asked amount, paid while the quote held. " +
        "`late`: paid after the quote ended (`expires_at` passed, or the top-up was cancelled). `excess` and " +
        "`late` coins are valued at the lower of the locked rate and the market rate when they were credited.",
    }),
    amount: z
      .string()
      .meta({ description: "Coins in this part, in the deposit coin.", example: "0.00025000" }),
    rate_usd: z.string().meta({ description: "USD per coin this part was valued at.", example: "50000" }),
    usd: z
      .number()
      .meta({ description: "USD credited for this part, rounded down to the cent.", example: 12.5 }),
  })
  .meta({ id: "CreditedPart" });

export const TopupPaymentSchema = z
  .object({
    tx_hash: z
      .string()
      .meta({ description: "Transaction id on the deposit network (`demo-…` in demo mode)." }),
    amount: z.string().meta({ description: "Amount received, in the deposit coin.", example: "0.00025774" }),
    confirmations: z.int().min(0),
    explorer_url: z
      .string()
      .nullable()
      .meta({
        description:
          "The transaction on a public explorer (`EXPLORER_TX_URLS`); null for simulated payments and " +
          "coins without one.",
      }),
    dropped: z.boolean().meta({
      description:
        "True when the transaction left the mempool without being mined (replaced by a double spend or " +
        "evicted): it is not counted and will not be credited unless it is seen again.",
    }),
    credited_usd: z.number().nullable().meta({
      description:
        "USD this payment added to the balance, the sum of `credited_parts`; null until it has its confirmations.",
      example: 37.5,
    }),
    credited_parts: z.array(CreditedPartSchema).meta({
      description: "How this payment was credited, part by part; empty until it has its confirmations.",
    }),
  })
  .meta({ id: "TopupPayment" });

export const TopupSchema = z
  .object({
    ref: z
      .string()
      .meta({ description: "Reference used to poll the top-up.", example: "tp_7k2m9q4xw3c8r5tz6yb1" }),
    status: z.enum(["pending", "completed", "expired", "cancelled"]),
    amount_usd: z.number().meta({ description: "The USD amount asked for.", example: 50 }),
    coin: z.string().meta({ description: "The coin code of the request.", example: "BTC" }),
    deposit_address: z.string().meta({
      description:
        "Where to pay: unique to this top-up. For x402 top-ups, the address that received the USDC.",
    }),
    deposit_amount: z.string().meta({
      description: "Amount to pay, in the deposit coin, as a decimal string.",
      example: "0.00051547",
    }),
    deposit_coin: z.string().meta({ description: "The coin to send.", example: "BTC" }),
    deposit_network: z
      .string()
      .nullable()
      .meta({
        description: `Network to send on: ${NETWORKS.slice(0, -1).join(", ")} or ${NETWORKS.at(-1)}.`,
      }),
    qr_data_uri: z
      .string()
      .nullable()
      .meta({ description: "PNG data URI of a QR code of `payment_uri` (null for x402 top-ups)." }),
    expires_at: timestamp().nullable().meta({
      description:
        "When the quoted amount stops being valid (cancelling ends it then); null for x402 top-ups.",
    }),
    payment_uri: z.string().nullable().meta({
      description: "A URI wallets understand (BIP21, EIP-681, monero:), the content of the QR code.",
      example: "bitcoin:bc1q...?amount=0.00051547",
    }),
    rate_usd: z.string().meta({
      description:
        "USD per deposit coin, locked for this top-up: the asked amount is paid at it, and no coin of it is " +
        "credited above it.",
      example: "97000",
    }),
    rate_source: z.string().meta({
      description:
        "Where the rate came from: `demo-fixed` (demo mode, not a market price), `coingecko`, or `par`.",
    }),
    confirmations_required: z
      .int()
      .meta({ description: "Confirmations a payment needs before it is credited." }),
    received_amount: z
      .string()
      .meta({ description: "Total seen so far, confirmed or not, in the deposit coin." }),
    confirmed_amount: z
      .string()
      .meta({ description: "Total with enough confirmations, in the deposit coin." }),
    credited_usd: z.number().meta({
      description:
        "USD credited to the balance by this top-up. Equals amount_usd when paid as asked in time; a partial " +
        "payment in time is credited at the locked rate; coins beyond the asked amount or paid after the quote " +
        "ended at the lower of the locked rate and the market rate when credited (see each payment's " +
        "`credited_parts`).",
    }),
    payments: z.array(TopupPaymentSchema),
    payer: z.string().nullable().meta({ description: "For x402 top-ups, the wallet that paid." }),
    demo: z.boolean().meta({ description: "True when payments are simulated (demo mode)." }),
    created_at: timestamp(),
    closed_at: timestamp()
      .nullable()
      .meta({ description: "When the top-up left `pending` (completed, expired or cancelled)." }),
  })
  .meta({
    id: "Topup",
    description:
      "A top-up. `pending` -> `completed` when the payment is confirmed (balance credited); `pending` -> `expired` at `expires_at` with nothing received; `pending` -> `cancelled` by the owner. Payments that arrive later are still credited.",
  });

/** Top-ups per page of `GET /topups` when the client names no `limit`. */
export const TOPUP_PAGE_DEFAULT = 50;

export const TopupListSchema = z
  .object({
    topups: z.array(TopupSchema).meta({ description: "Newest first." }),
    next_cursor: nextCursorField(),
  })
  .meta({ id: "TopupList" });

export const X402RequirementSchema = z
  .object({
    scheme: z.literal("exact"),
    network: z.string().meta({ example: "base" }),
    maxAmountRequired: z.string().meta({
      description: "USDC in base units (6 decimals): exactly the amount to authorize.",
      example: "50000000",
    }),
    resource: z.string().meta({ description: "The URL being paid for." }),
    description: z.string(),
    mimeType: z.string(),
    payTo: z.string().meta({ description: "Recipient address." }),
    maxTimeoutSeconds: z.int(),
    asset: z.string().meta({ description: "USDC contract." }),
    extra: z
      .object({ name: z.string(), version: z.string() })
      .meta({ description: "The token's EIP-712 domain name and version." }),
  })
  .meta({ id: "X402Requirement" }) satisfies z.ZodType<RailRequirement>;

export const X402RequirementsSchema = z
  .object({
    x402Version: z.literal(1),
    error: z.string().meta({ description: "Why payment is required, as a code." }),
    message: z.string(),
    accepts: z.array(X402RequirementSchema),
  })
  .meta({
    id: "X402Requirements",
    description:
      "The x402 (v1) challenge. Sign an EIP-3009 TransferWithAuthorization for exactly `maxAmountRequired` and re-send the same request with the `X-PAYMENT` header.",
  });

export const SimulatePaymentRequestSchema = z
  .strictObject({
    amount: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .optional()
      .meta({
        description: "Amount to pay in the deposit coin; default: exactly `deposit_amount`.",
        example: "0.0001",
      }),
  })
  .meta({ id: "SimulatePaymentRequest" });

export const SimulatePaymentBody = requestBody(SimulatePaymentRequestSchema, {
  amount: {
    code: "invalid_amount",
    message:
      'Send amount as a decimal string in the deposit\'s coin, e.g. "0.0001", or leave it out to pay exactly deposit_amount.',
  },
});

export type CreateTopupRequest = z.infer<typeof CreateTopupRequestSchema>;
export type Topup = z.infer<typeof TopupSchema>;
export type X402Requirement = z.infer<typeof X402RequirementSchema>;
export type TopupPayment = z.infer<typeof TopupPaymentSchema>;
