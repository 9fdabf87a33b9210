/**
 * An order paid with x402 on a real machine (the tiny test guest), on the app's demo chain: the payment is held
 * while the machine is built and boots, and settled only once its SSH server answers.
 */
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { createPublicClient, erc20Abi, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, inject, it } from "vitest";
import { api, createAccount, randomIp, targetApp } from "../api/helpers";
import { mintTestUsdc } from "../support/test-wallet";
import { type Server, sshWhenUp, TINY_BOOT_MS, waitFor } from "./host";

targetApp("tinyBaseUrl");

/** The demo chain's test USDC sits at USDC's address on Base. */
const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
/** A Pup in Amsterdam: 4 USD a month. */
const PRICE_UNITS = 4_000_000n;
const FUNDED_UNITS = 10_000_000n;

describe("an order paid with x402 on a real machine", () => {
  it("is held while the machine is built and settled only after its SSH server answers", async () => {
    const rpcUrl = inject("tinyDemoChainUrl");
    const chain = createPublicClient({ transport: http(rpcUrl) });
    const usdcOf = (owner: `0x${string}`) =>
      chain.readContract({ address: USDC, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
    const payer = privateKeyToAccount(generatePrivateKey());
    await mintTestUsdc(rpcUrl, USDC, payer.address, FUNDED_UNITS);
    const { apiKey } = await createAccount();
    const client = new x402Client()
      .register("eip155:*", new ExactEvmScheme(payer))
      .setSpendControls({ maxAmountPerPayment: "$2000" });
    const response = await wrapFetchWithPayment(fetch, client)(`${inject("tinyBaseUrl")}/api/v1/servers`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        "x-forwarded-for": randomIp(),
      },
      body: JSON.stringify({ plan: "pup", location: "nl", os: "debian-12", hostname: "paid-by-x402" }),
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as Server & { root_password: string };
    expect(created.status).toBe("provisioning");

    // Built, booted, and answering on SSH: the libvirt provisioner turns a server active only then. Until
    // then, every look at the chain finds the payer's funds where they were.
    let heldReads = 0;
    const active = await waitFor(
      async () => {
        const server = (await api(`/servers/${created.id}`, { key: apiKey })).body as unknown as Server;
        if (server.status === "provisioning") {
          expect(await usdcOf(payer.address)).toBe(FUNDED_UNITS);
          heldReads += 1;
        }
        return server;
      },
      (server) => server.status !== "provisioning",
      TINY_BOOT_MS,
    );
    expect(active.status).toBe("active");
    expect(heldReads).toBeGreaterThan(0);
    const login = { password: created.root_password };
    const pinned = active.ssh_host_key_fingerprint as string;
    expect(await sshWhenUp(active.ssh_port as number, pinned, login, "echo up", 60_000)).toBe("up");

    // Then settled: the payer's USDC moved once, credited as a top-up and charged for the order.
    const activeAt = Date.now();
    await waitFor(
      () => usdcOf(payer.address),
      (units) => units === FUNDED_UNITS - PRICE_UNITS,
      30_000,
    );
    console.log(
      `x402 order on a real machine: settled within ${Date.now() - activeAt} ms of its SSH answering`,
    );
    const topups = await waitFor(
      async () =>
        (await api("/topups", { key: apiKey })).body.topups as { status: string; credited_usd: number }[],
      (list) => list.length > 0,
      10_000,
    );
    expect(topups).toEqual([expect.objectContaining({ status: "completed", credited_usd: 4 })]);
    expect((await api("/account", { key: apiKey })).body.balance_usd).toBe(0);

    const ended = await api(`/servers/${created.id}`, { method: "DELETE", key: apiKey });
    expect(ended.body).toMatchObject({ status: "terminated" });
  });
});
