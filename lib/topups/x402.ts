import "server-only";
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { and, eq, lt } from "drizzle-orm";
import { getAddress } from "viem";
import type { ErrorCode } from "@/lib/api/error-codes";
import { ApiError, badRequest } from "@/lib/api/errors";
import type { Topup, X402Requirement } from "@/lib/api/schemas/topups";
import { config } from "@/lib/config/env";
import { db, type Tx } from "@/lib/db/client";
import { depositPayments, heldOrderPayments, topups, x402Authorizations } from "@/lib/db/schema";
import { X402_COIN } from "@/lib/rails/registry";
import { x402Settings } from "@/lib/rails/x402/config";
import {
  acceptedAsOffered,
  checkPaymentTerms,
  checkPaymentWindow,
  decodePaymentHeader,
  decodePaymentSignatureV2,
  type ExactEvmPayloadV1,
  PaymentHeaderError,
} from "../rails/x402/payload";
import {
  type ChainSettlement,
  ChainUnavailableError,
  type ExpectedTransfer,
  type X402Rail,
  x402Rail,
} from "../rails/x402/rail";
import {
  caip2Network,
  centsToUsdcUnits,
  paymentRequiredV2,
  topupRequirement,
  toV2Requirement,
} from "../rails/x402/requirements";
import { presentTopup } from "./present";
import { newTopupRef } from "./ref";
import { creditSettledPayment } from "./settlement";

/**
 * A claim on an authorization lasts this long (longer than a settlement's 30 s receipt wait); a request
 * that dies mid-settlement leaves it to its owner's retry after that.
 */
const CLAIM_LEASE_MS = 60_000;

/** The x402 wire version a payment came in on: its answer goes back in the same version's header. */
export type X402Version = 1 | 2;

export type X402Payment = {
  status: 200 | 201;
  topup: Topup;
  /** The settlement response header's name and value for the version the payment came in. */
  paymentResponse: { header: "X-PAYMENT-RESPONSE" | "PAYMENT-RESPONSE"; value: string };
};
type Credited = { status: 200 | 201; topup: Topup; txHash: string; payer: string };

type AuthorizationKey = { network: string; asset: string; payer: string; nonce: string };
type AuthorizationRow = typeof x402Authorizations.$inferSelect;

/**
 * What a payment is offered for when it is not a plain top-up: the words the payer's wallet shows (a renewal,
 * an order) and a longer validity window (an order's payment is held while its server is built).
 */
export type X402Offer = { description?: string; maxTimeoutSeconds?: number };

/** Work done in the credit's own transaction, after the top-up is credited: a charge it pays for. */
export type CreditFollowUp = (tx: Tx, topupId: number) => Promise<void>;

/** The requirement for a top-up of `amountCents`, with the resource URL it is paid at. */
export function x402Requirement(
  amountCents: number,
  resource: string,
  offer: X402Offer = {},
): X402Requirement {
  const settings = x402Settings();
  if (!settings.payTo) throw new Error("X402_PAY_TO is not configured");
  const requirement = topupRequirement(settings, settings.payTo, amountCents, resource);
  return {
    ...requirement,
    description: offer.description ?? requirement.description,
    maxTimeoutSeconds: offer.maxTimeoutSeconds ?? requirement.maxTimeoutSeconds,
  };
}

/** What a browser may read of an x402 answer (CORS): the offer and the settlement receipts. */
export const X402_EXPOSED_HEADERS = {
  "Access-Control-Expose-Headers": "PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE",
};

/** The 402 challenge body: the spec's X402Requirements plus the API's `error` and `message`. */
export function x402Challenge(
  requirement: X402Requirement,
  code: ErrorCode = "payment_required",
  message?: string,
) {
  return {
    x402Version: 1 as const,
    error: code,
    message:
      message ??
      "Pay with USDC on Base: sign an EIP-3009 authorization for exactly maxAmountRequired and re-send this request with the X-PAYMENT header.",
    accepts: [requirement],
  };
}

/** The `PAYMENT-REQUIRED` header (v2) for the same offer as the v1 body. */
export function x402ChallengeHeaders(requirement: X402Requirement, code: ErrorCode = "payment_required") {
  return {
    "PAYMENT-REQUIRED": encodePaymentRequiredHeader(
      paymentRequiredV2(requirement, x402Settings().chainId, code) as unknown as PaymentRequired,
    ),
  };
}

const rejection = (requirement: X402Requirement, code: ErrorCode, message: string) => {
  const { error, message: text, ...rest } = x402Challenge(requirement, code, message);
  return new ApiError(402, error, text, rest, x402ChallengeHeaders(requirement, code));
};

/** The chain shows the authorization used, but not after a claim made here: it credits no account. */
const settledElsewhere = () =>
  new ApiError(
    409,
    "payment_settled_elsewhere",
    "This authorization was already used on chain, not through this service, so it cannot be credited; sign a new one.",
  );

const unavailable = () =>
  new ApiError(
    503,
    "payment_network_unavailable",
    "The payment network is unreachable; nothing was charged. Retry shortly with the same X-PAYMENT header.",
    {},
    { "Retry-After": "2" },
  );

const keyWhere = (key: AuthorizationKey) =>
  and(
    eq(x402Authorizations.network, key.network),
    eq(x402Authorizations.asset, key.asset),
    eq(x402Authorizations.payer, key.payer),
    eq(x402Authorizations.nonce, key.nonce),
  );

async function findAuthorization(key: AuthorizationKey): Promise<AuthorizationRow | undefined> {
  const database = await db();
  const [row] = await database.select().from(x402Authorizations).where(keyWhere(key));
  return row;
}

function paymentResponse(credited: Credited, version: X402Version): X402Payment {
  const settings = x402Settings();
  // The v1 wire names networks plainly ("base"); v2 uses CAIP-2 ids, which is all the encoder's type knows.
  const network =
    version === 2 ? caip2Network(settings.chainId) : (settings.network as `${string}:${string}`);
  const value = encodePaymentResponseHeader({
    success: true,
    transaction: credited.txHash,
    network,
    payer: credited.payer,
  });
  return {
    status: credited.status,
    topup: credited.topup,
    paymentResponse: { header: version === 2 ? "PAYMENT-RESPONSE" : "X-PAYMENT-RESPONSE", value },
  };
}

async function presentX402Topup(topupId: number): Promise<Topup> {
  const database = await db();
  const [row] = await database.select().from(topups).where(eq(topups.id, topupId));
  if (!row) throw new Error(`top-up ${topupId} vanished`);
  const payments = await database.select().from(depositPayments).where(eq(depositPayments.topupId, topupId));
  return presentTopup(row, payments, config().mode === "demo" && !x402Settings().rpcUrl);
}

/**
 * What to answer for an authorization we already know: the same account re-sending a settled payment gets
 * its top-up again (200), anyone else gets 409; one still being settled gets 409 with Retry-After; one whose
 * outcome was never recorded and that the operator settled by an adjustment is never credited here again
 * (409 naming it). Returns undefined when an abandoned claim may be taken over.
 */
async function answerForKnown(row: AuthorizationRow, accountId: number): Promise<Credited | undefined> {
  if (row.state === "adjusted") {
    if (row.accountId !== accountId) {
      throw new ApiError(409, "payment_already_used", "This payment authorization has already been used.");
    }
    throw new ApiError(
      409,
      "payment_settled_by_operator",
      "This payment's settlement was never recorded here, and the operator credited it to your balance by an " +
        "adjustment (see the ledger); it is not credited again.",
    );
  }
  if (row.state === "settled" && row.topupId !== null && row.txHash) {
    if (row.accountId !== accountId) {
      throw new ApiError(409, "payment_already_used", "This payment authorization has already been used.");
    }
    return {
      status: 200,
      topup: await presentX402Topup(row.topupId),
      txHash: row.txHash,
      payer: getAddress(row.payer),
    };
  }
  if (row.leaseUntil && row.leaseUntil.getTime() > Date.now()) {
    throw new ApiError(
      409,
      "payment_in_progress",
      "This payment is being settled; retry shortly to get the result.",
      {},
      { "Retry-After": "2" },
    );
  }
  return undefined;
}

/** Another request holds or has settled this authorization: its answer, or 409 while it is still running. */
async function answerAsRecorded(key: AuthorizationKey, accountId: number): Promise<Credited> {
  const existing = await findAuthorization(key);
  const known = existing && (await answerForKnown(existing, accountId));
  if (known) return known;
  throw new ApiError(
    409,
    "payment_in_progress",
    "This payment is being settled; retry shortly.",
    {},
    {
      "Retry-After": "2",
    },
  );
}

/** A claim this request holds: `fresh` when it was just made, not taken over from an earlier attempt. */
type Claim = { id: number; fresh: boolean };

/**
 * Claims the authorization for this account: a new claim (when `mayCreate`), or this account's own claim
 * whose lease lapsed (an earlier attempt that died or lost its answer mid-settlement). Otherwise the answer
 * another request recorded (its top-up again, or 409), or undefined when nobody here ever claimed it.
 */
async function claim(
  key: AuthorizationKey,
  accountId: number,
  mayCreate: boolean,
): Promise<Claim | Credited | undefined> {
  const database = await db();
  const leaseUntil = new Date(Date.now() + CLAIM_LEASE_MS);
  if (mayCreate) {
    const [inserted] = await database
      .insert(x402Authorizations)
      .values({ ...key, accountId, state: "in_flight", leaseUntil })
      .onConflictDoNothing()
      .returning({ id: x402Authorizations.id });
    if (inserted) return { id: inserted.id, fresh: true };
  }
  const [takenOver] = await database
    .update(x402Authorizations)
    .set({ accountId, leaseUntil })
    .where(
      and(
        keyWhere(key),
        eq(x402Authorizations.state, "in_flight"),
        eq(x402Authorizations.accountId, accountId),
        lt(x402Authorizations.leaseUntil, new Date()),
      ),
    )
    .returning({ id: x402Authorizations.id });
  if (takenOver) return { id: takenOver.id, fresh: false };
  if (!mayCreate && !(await findAuthorization(key))) return undefined;
  return answerAsRecorded(key, accountId);
}

async function releaseClaim(claimId: number): Promise<void> {
  const database = await db();
  await database
    .delete(x402Authorizations)
    .where(and(eq(x402Authorizations.id, claimId), eq(x402Authorizations.state, "in_flight")));
}

/**
 * Records a transfer the chain shows and credits it, in one transaction: the authorization row becomes
 * `settled` (only from this request's own claim), and ./settlement writes
 * the completed top-up, its payment and the credit under a reference unique to the authorization.
 */
async function creditSettlement(input: {
  key: AuthorizationKey;
  claimId: number;
  accountId: number;
  amountCents: number;
  requirement: X402Requirement;
  settlement: ChainSettlement;
  thenInTx?: CreditFollowUp;
}): Promise<Credited> {
  const { key, claimId, accountId, requirement } = input;
  const { txHash, value, logIndex } = input.settlement;
  // The credit is the transfer's value, which must be the top-up's amount in whole cents (at least one).
  if (input.amountCents < 1 || value !== centsToUsdcUnits(input.amountCents)) {
    await releaseClaim(claimId);
    throw rejection(
      requirement,
      "payment_amount_mismatch",
      `The authorization must be for exactly ${requirement.maxAmountRequired} USDC base units, as the top-up asks.`,
    );
  }
  const database = await db();
  const outcome = await database.transaction(async (tx) => {
    const [owned] = await tx
      .update(x402Authorizations)
      .set({ state: "settled", txHash, leaseUntil: null })
      .where(and(eq(x402Authorizations.id, claimId), eq(x402Authorizations.state, "in_flight")))
      .returning({ id: x402Authorizations.id });
    if (!owned) return undefined;
    const topupId = await creditSettledPayment(tx, {
      topup: {
        ref: newTopupRef(),
        accountId,
        method: "x402",
        coin: X402_COIN.code,
        network: key.network,
        amountCents: input.amountCents,
        depositAddress: getAddress(requirement.payTo),
        rateUsd: "1",
        rateSource: "par",
        payer: getAddress(key.payer),
      },
      payment: { txHash, logIndex, amountUnits: value },
      reference: `x402:${key.network}:${key.asset}:${key.payer}:${key.nonce}`,
    });
    await tx.update(x402Authorizations).set({ topupId }).where(eq(x402Authorizations.id, owned.id));
    await input.thenInTx?.(tx, topupId);
    return topupId;
  });
  if (outcome === undefined) {
    // Someone else recorded this authorization between our read and our write: answer as they did.
    return answerAsRecorded(key, accountId);
  }
  return {
    status: 201,
    topup: await presentX402Topup(outcome),
    txHash,
    payer: getAddress(key.payer),
  };
}

/**
 * The authorization was used on chain after this account claimed it here (by our settlement, or by anyone
 * who submitted it first): credit from the chain's own record of it.
 */
async function creditFromChain(
  rail: X402Rail,
  payment: ExactEvmPayloadV1,
  requirement: X402Requirement,
  context: {
    key: AuthorizationKey;
    claimId: number;
    accountId: number;
    amountCents: number;
    thenInTx?: CreditFollowUp;
  },
): Promise<Credited> {
  const found = await rail.findSettlement(expectedTransfer(payment, requirement));
  if (!found) {
    await releaseClaim(context.claimId);
    throw rejection(
      requirement,
      "payment_already_used",
      "This authorization was already used or cancelled on chain without paying this service; sign a new one.",
    );
  }
  return creditSettlement({ ...context, requirement, settlement: found });
}

/** The transfer an authorization makes: its own value, from its payer to our address, under its nonce. */
function expectedTransfer(payment: ExactEvmPayloadV1, requirement: X402Requirement): ExpectedTransfer {
  const { from, nonce, value } = payment.payload.authorization;
  return { payer: from, nonce, payTo: requirement.payTo, value: BigInt(value) };
}

/** Maps the facilitator's verification reasons to the API's codes. */
function verifyFailure(reason: string | undefined): { code: ErrorCode; message: string } {
  if (reason?.includes("insufficient_balance")) {
    return { code: "insufficient_funds", message: "The paying wallet does not hold enough USDC." };
  }
  if (reason?.includes("nonce_already_used")) {
    return { code: "payment_already_used", message: "This authorization was already used; sign a new one." };
  }
  if (reason?.includes("signature")) {
    return { code: "invalid_payment_signature", message: "The authorization's signature is not valid." };
  }
  return {
    code: "payment_rejected",
    message: `The payment was rejected by the token contract${reason ? ` (${reason})` : ""}; sign a new authorization.`,
  };
}

/**
 * Settles an x402 payment for a top-up of `amountCents` and credits it exactly once. The amount is the
 * request's, never the signature's: an authorization for anything else is refused before any chain call.
 * Order: decode -> our own checks of the terms -> known to us already? -> already used on chain? (then only
 * this account's own earlier claim is credited, from the chain: a settlement whose answer was lost) ->
 * validity window -> funds -> signature (a contract wallet's under a gas limit) -> claim -> still unused? ->
 * facilitator verification (simulation) -> settle -> credit. An authorization used on chain before this
 * service claimed it credits nobody: anyone can copy one from a public transaction. Until our transaction
 * may have been sent, a failure releases the claim; after that the claim is kept, so the outcome is only
 * ever decided from the chain. A network failure answers 503 and credits nothing.
 */
export async function payTopupWithX402(input: {
  accountId: number;
  amountCents: number;
  header: string;
  /** 1: the header was `X-PAYMENT`; 2: it was `PAYMENT-SIGNATURE`. */
  version: X402Version;
  resource: string;
  /** The challenge's offer when it was not a top-up's, so the payment is checked against what was offered. */
  offer?: X402Offer;
  /** A charge the credit pays for, written in the credit's transaction (never for a payment credited before). */
  thenInTx?: CreditFollowUp;
}): Promise<X402Payment> {
  const requirement = x402Requirement(input.amountCents, input.resource, input.offer);
  const payment = decodeAsOffered(input.header, input.version, requirement);
  return paymentResponse(await settleAndCredit(input, requirement, payment), input.version);
}

/** The payment in a header, checked against the offer when it came as v2 (whose `accepted` must repeat it). */
function decodeAsOffered(
  header: string,
  version: X402Version,
  requirement: X402Requirement,
): ExactEvmPayloadV1 {
  try {
    if (version === 1) return decodePaymentHeader(header);
    const offered = toV2Requirement(requirement, x402Settings().chainId);
    const checked = acceptedAsOffered(decodePaymentSignatureV2(header), offered, requirement.network);
    if ("rejection" in checked) {
      throw rejection(requirement, checked.rejection.code, checked.rejection.message);
    }
    return checked.payment;
  } catch (error) {
    if (error instanceof PaymentHeaderError) throw badRequest("invalid_payment", error.message);
    throw error;
  }
}

/**
 * The checks a payment must pass before it is claimed: within its validity window, the wallet holding the
 * amount, and a valid signature. The balance comes before the signature: a contract wallet's check runs its
 * code on our node, and a wallet without the money never gets that far.
 */
async function refuseUnpayable(rail: X402Rail, payment: ExactEvmPayloadV1, requirement: X402Requirement) {
  const window = checkPaymentWindow(payment, requirement, Math.floor(Date.now() / 1000));
  if (window) throw rejection(requirement, window.code, window.message);
  const { from, value } = payment.payload.authorization;
  if ((await rail.balanceOf(from)) < BigInt(value)) {
    throw rejection(requirement, "insufficient_funds", "The paying wallet does not hold enough USDC.");
  }
  const signature = await rail.payerSignature(payment);
  if (signature === "undeployed_wallet") {
    throw rejection(
      requirement,
      "payment_wallet_not_deployed",
      "The authorization is signed by a smart wallet that is not deployed yet (ERC-6492); deploy the wallet, then pay.",
    );
  }
  if (signature !== "valid") {
    throw rejection(
      requirement,
      "invalid_payment_signature",
      "The authorization is not signed by its `from` address.",
    );
  }
}

async function heldForAnOrder(payer: string, nonce: string): Promise<boolean> {
  const database = await db();
  const [row] = await database
    .select({ id: heldOrderPayments.id })
    .from(heldOrderPayments)
    .where(and(eq(heldOrderPayments.payer, payer), eq(heldOrderPayments.nonce, nonce)));
  return row !== undefined;
}

/** A payment held for later settlement: who pays, under which nonce, and until when it may be settled. */
export type HeldPayment = { payer: string; nonce: string; validBefore: Date };

/**
 * Checks a payment as settling it would, without settling: the terms, unused here and on chain, the window
 * (valid for at least `minValidSeconds` more, so it outlives what it is held for), funds, signature and the
 * settler's own verification (a simulation). Nothing is claimed or submitted; the caller holds the payment.
 */
export async function checkPaymentToHold(input: {
  amountCents: number;
  header: string;
  version: X402Version;
  resource: string;
  offer: X402Offer;
  minValidSeconds: number;
}): Promise<HeldPayment> {
  const requirement = x402Requirement(input.amountCents, input.resource, input.offer);
  const payment = decodeAsOffered(input.header, input.version, requirement);
  const terms = checkPaymentTerms(payment, requirement);
  if (terms) throw rejection(requirement, terms.code, terms.message);
  const { from, nonce, validBefore } = payment.payload.authorization;
  const used = () =>
    rejection(requirement, "payment_already_used", "This authorization was already used; sign a new one.");
  const key = {
    network: requirement.network,
    asset: requirement.asset.toLowerCase(),
    payer: from.toLowerCase(),
    nonce: nonce.toLowerCase(),
  };
  // Settled or claimed here already, or held for an order (of any account): one authorization pays once.
  if ((await findAuthorization(key)) || (await heldForAnOrder(key.payer, key.nonce))) throw used();
  if (BigInt(validBefore) < BigInt(Math.floor(Date.now() / 1000) + input.minValidSeconds)) {
    throw rejection(
      requirement,
      "payment_window_too_short",
      `The authorization must stay valid for the build: sign it with validBefore at least ${input.minValidSeconds} s from now (maxTimeoutSeconds is ${requirement.maxTimeoutSeconds}).`,
    );
  }
  try {
    const rail = await x402Rail();
    if (await rail.authorizationUsed(from, nonce)) throw used();
    await refuseUnpayable(rail, payment, requirement);
    const verdict = await rail.verify(payment, requirement);
    if (!verdict.isValid) {
      const failure = verifyFailure(verdict.invalidReason);
      throw rejection(requirement, failure.code, failure.message);
    }
  } catch (error) {
    if (error instanceof ChainUnavailableError) throw unavailable();
    throw error;
  }
  return { payer: key.payer, nonce: key.nonce, validBefore: new Date(Number(validBefore) * 1000) };
}

async function settleAndCredit(
  input: { accountId: number; amountCents: number; thenInTx?: CreditFollowUp },
  requirement: X402Requirement,
  payment: ExactEvmPayloadV1,
): Promise<Credited> {
  const { accountId, amountCents, thenInTx } = input;
  const terms = checkPaymentTerms(payment, requirement);
  if (terms) throw rejection(requirement, terms.code, terms.message);

  const { from, nonce } = payment.payload.authorization;
  const key: AuthorizationKey = {
    network: requirement.network,
    asset: requirement.asset.toLowerCase(),
    payer: from.toLowerCase(),
    nonce: nonce.toLowerCase(),
  };
  const known = await findAuthorization(key);
  if (known) {
    const answer = await answerForKnown(known, accountId);
    if (answer) return answer;
  }

  let claimId: number | undefined;
  let mayHaveBeenSent = false;
  try {
    const rail = await x402Rail();
    if (await rail.authorizationUsed(from, nonce)) {
      // Used on chain already: only this account's own claim, made here before the use, is credited.
      const claimed = await claim(key, accountId, false);
      if (!claimed) throw settledElsewhere();
      if ("status" in claimed) return claimed;
      claimId = claimed.id;
      return await creditFromChain(rail, payment, requirement, {
        key,
        claimId,
        accountId,
        amountCents,
        thenInTx,
      });
    }
    await refuseUnpayable(rail, payment, requirement);
    const claimed = await claim(key, accountId, true);
    if (!claimed) throw new Error("a claim that may be created was neither created nor answered");
    if ("status" in claimed) return claimed;
    claimId = claimed.id;
    const context = { key, claimId, accountId, amountCents, thenInTx };
    if (await rail.authorizationUsed(from, nonce)) {
      // Used between our first look and our claim. A new claim means no request here had claimed it, so the
      // use was not ours; our own earlier claim means our earlier settlement landed.
      if (claimed.fresh) throw settledElsewhere();
      return await creditFromChain(rail, payment, requirement, context);
    }
    const verdict = await rail.verify(payment, requirement);
    if (!verdict.isValid && (await rail.authorizationUsed(from, nonce))) {
      // Someone submitted the authorization after we claimed it (front-running us): credit that transfer.
      return await creditFromChain(rail, payment, requirement, context);
    }
    if (!verdict.isValid) {
      const failure = verifyFailure(verdict.invalidReason);
      throw rejection(requirement, failure.code, failure.message);
    }

    mayHaveBeenSent = true;
    const settled = await rail.settle(payment, requirement);
    if (settled.success && settled.transaction) {
      // Credited from what our transaction did on chain: the transfer paired with this authorization.
      const landed = await rail.settlementIn(
        settled.transaction as `0x${string}`,
        expectedTransfer(payment, requirement),
      );
      if (landed) {
        return await creditSettlement({ ...context, requirement, settlement: landed });
      }
    }
    // Our settlement did not succeed. If the authorization is used anyway, the money reached us by
    // another transaction (front-running, or ours mined after the receipt wait gave up): credit that.
    if (await rail.authorizationUsed(from, nonce)) {
      return await creditFromChain(rail, payment, requirement, context);
    }
    if (/revert|^invalid_/i.test(settled.errorReason ?? "")) {
      // The settlement was refused before a transaction was sent (re-verification failed) or its
      // transaction reverted: nothing can land later.
      mayHaveBeenSent = false;
      throw rejection(
        requirement,
        "payment_failed",
        "The payment could not be settled on chain and nothing was charged; sign a new authorization and retry.",
      );
    }
    throw new ApiError(
      503,
      "payment_pending",
      "The settlement was sent but not yet seen on chain; nothing is credited yet. Retry with the same X-PAYMENT header in a minute.",
      {},
      { "Retry-After": String(CLAIM_LEASE_MS / 1000) },
    );
  } catch (error) {
    // Until a transaction may exist the claim is released so a retry starts afresh; after that it is
    // kept, and only its owner's retry (after the lease) can resolve it from the chain.
    if (claimId !== undefined && !mayHaveBeenSent) await releaseClaim(claimId).catch(() => undefined);
    if (error instanceof ChainUnavailableError) throw unavailable();
    throw error;
  }
}
