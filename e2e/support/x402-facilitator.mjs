#!/usr/bin/env node
/**
 * A standalone x402 facilitator for tests and measurements: the official `x402Facilitator` with the exact EVM
 * scheme (v2 and v1) over HTTP (POST /verify, POST /settle, GET /supported), settling on the chain at RPC_URL
 * (chain id CHAIN_ID, default 8453) with PRIVATE_KEY paying the gas. Every request must carry
 * `Authorization: Bearer TOKEN`. It prints `listening <url>` once it accepts requests; GET /stats (no auth)
 * counts the calls it answered.
 */
import http from "node:http";
import { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { createWalletClient, defineChain, publicActions, http as viemHttp } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const { RPC_URL, PRIVATE_KEY, TOKEN } = process.env;
const chainId = Number(process.env.CHAIN_ID ?? "8453");
if (!RPC_URL || !PRIVATE_KEY || !TOKEN) {
  console.error("Set RPC_URL, PRIVATE_KEY and TOKEN.");
  process.exit(2);
}

const chain = defineChain({
  id: chainId,
  name: `chain ${chainId}`,
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [RPC_URL] } },
});
const wallet = createWalletClient({
  account: privateKeyToAccount(PRIVATE_KEY),
  chain,
  transport: viemHttp(RPC_URL),
  pollingInterval: 500,
}).extend(publicActions);
const signer = toFacilitatorEvmSigner({
  address: wallet.account.address,
  readContract: (args) => wallet.readContract(args),
  verifyTypedData: (args) => wallet.verifyTypedData(args),
  writeContract: (args) => wallet.writeContract(args),
  sendTransaction: (args) => wallet.sendTransaction(args),
  waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
  getCode: (args) => wallet.getCode(args),
});
const facilitator = new x402Facilitator();
registerExactEvmScheme(facilitator, { signer, networks: `eip155:${chainId}` });

const stats = { verify: 0, settle: 0, supported: 0, unauthorized: 0 };

async function readJson(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function send(response, status, body) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

const server = http.createServer(async (request, response) => {
  try {
    if (request.method === "GET" && request.url === "/stats") return send(response, 200, stats);
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      stats.unauthorized++;
      return send(response, 401, { error: "unauthorized" });
    }
    if (request.method === "GET" && request.url === "/supported") {
      stats.supported++;
      return send(response, 200, facilitator.getSupported());
    }
    if (request.method === "POST" && (request.url === "/verify" || request.url === "/settle")) {
      const { paymentPayload, paymentRequirements } = await readJson(request);
      if (request.url === "/verify") {
        stats.verify++;
        return send(response, 200, await facilitator.verify(paymentPayload, paymentRequirements));
      }
      stats.settle++;
      return send(response, 200, await facilitator.settle(paymentPayload, paymentRequirements));
    }
    send(response, 404, { error: "not_found" });
  } catch (error) {
    send(response, 500, { error: "facilitator_error", message: String(error?.message ?? error) });
  }
});

server.listen(Number(process.env.PORT ?? "0"), "127.0.0.1", () => {
  console.log(`listening http://127.0.0.1:${server.address().port}`);
});
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)));
