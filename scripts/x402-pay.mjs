#!/usr/bin/env node
/**
 * Tops up the balance with USDC on Base from the command line, with the official x402 client.
 *
 *   KEY=vpsk_... node scripts/x402-pay.mjs 30
 *
 * BASE is the API (default http://127.0.0.1:3000/api/v1). The paying wallet's key is WALLET_KEY, or, against the
 * demo, the demo wallet's key from DATA_DIR/demo-secrets.json (default ./.data), which holds test USDC on the
 * demo chain. The client is registered for both x402 wire versions; the service's 402 offers both (the v1 body and
 * the v2 PAYMENT-REQUIRED header), and the client then pays with v2 (PAYMENT-SIGNATURE, answered by PAYMENT-RESPONSE).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";

const base = process.env.BASE || "http://127.0.0.1:3000/api/v1";
const apiKey = process.env.KEY;
const amount = Number(process.argv[2] ?? "30");
if (!apiKey) {
  console.error("Set KEY to your API key (vpsk_...).");
  process.exit(2);
}
if (!Number.isFinite(amount)) {
  console.error("Give the amount in USD, e.g. 30.");
  process.exit(2);
}

function walletKey() {
  if (process.env.WALLET_KEY) return process.env.WALLET_KEY;
  const secrets = path.join(process.env.DATA_DIR || ".data", "demo-secrets.json");
  try {
    return JSON.parse(readFileSync(secrets, "utf8")).chainWalletKey;
  } catch {
    console.error(`Set WALLET_KEY, or run this beside the demo (no ${secrets} here).`);
    process.exit(2);
  }
}

const client = new x402Client().setSpendControls({ maxAmountPerPayment: `$${amount}` });
registerExactEvmScheme(client, { signer: privateKeyToAccount(walletKey()) });
const pay = wrapFetchWithPayment(fetch, client);

const response = await pay(`${base}/topups`, {
  method: "POST",
  headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
  body: JSON.stringify({ amount, coin: "USDCBASE" }),
});
const body = await response.json();
const settlement = response.headers.get("payment-response") ?? response.headers.get("x-payment-response");
// One JSON document on stdout, so it pipes into jq.
console.log(
  JSON.stringify(
    {
      status: response.status,
      topup: body,
      settlement: settlement ? decodePaymentResponseHeader(settlement) : null,
    },
    null,
    2,
  ),
);
process.exit(response.ok ? 0 : 1);
