"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { erc20Abi } from "viem";
import {
  type Connector,
  useConnect,
  useConnection,
  useConnectors,
  useDisconnect,
  useReadContract,
  useSignTypedData,
  useSwitchChain,
  WagmiProvider,
} from "wagmi";
import { X402_NETWORK_NAMES as NETWORK_NAMES } from "@/lib/coins/registry";
import { formatApiUsd, formatUsd } from "@/lib/money/cents";
import { accountQuery } from "@/lib/queries/account";
import { BffError, bffFetch, errorMessage } from "@/lib/queries/bff-fetch";
import type { Topup } from "@/lib/queries/types";
import {
  authorizationTypedData,
  chainIdOf,
  type Hex,
  paymentHeader,
  type X402Challenge,
  type X402Requirement,
} from "@/lib/x402/authorization";
import { USDC_UNITS_PER_CENT } from "@/lib/x402/requirements";
import { DEMO_CONNECTOR_ID, walletConfig } from "./wagmi-config";
import { isStillSettling, isUserRejection, settlementFailure, type WalletFailure } from "./wallet-failures";

type Props = { amountCents: number; demoWallet: Hex | undefined };

/** The API's x402 challenge for this amount: what to sign, to whom, on which chain. */
async function fetchChallenge(amountCents: number): Promise<X402Requirement> {
  try {
    await bffFetch("/bff/topups", { method: "POST", body: { amount: amountCents / 100, coin: "USDCBASE" } });
  } catch (error) {
    const challenge = error instanceof BffError ? (error.body as Partial<X402Challenge>) : undefined;
    if (error instanceof BffError && error.status === 402 && challenge?.accepts?.[0]) {
      return challenge.accepts[0];
    }
    throw error;
  }
  throw new Error("The service did not ask for a payment.");
}

/** The wallet path: fetch the challenge, then connect, check chain and balance, sign, settle. */
export default function WalletPayment({ amountCents, demoWallet }: Props) {
  const challenge = useQuery({
    queryKey: ["x402-challenge", amountCents],
    queryFn: () => fetchChallenge(amountCents),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  if (challenge.isPending) return <p role="status">Getting the payment request…</p>;
  if (challenge.error) {
    return (
      <div className="space-y-2">
        <p role="alert" className="text-red-700 dark:text-red-400">
          {errorMessage(challenge.error)}
        </p>
        <button type="button" className="underline" onClick={() => challenge.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  const requirement = challenge.data;
  return (
    <WagmiProvider config={walletConfig(chainIdOf(requirement.network), demoWallet)}>
      <PayWithWallet amountCents={amountCents} requirement={requirement} />
    </WagmiProvider>
  );
}

type Stage =
  | { step: "ready" }
  | { step: "requesting" }
  | { step: "signing" }
  | { step: "settling" }
  | { step: "credited"; topup: Topup }
  | { step: "failed"; failure: WalletFailure; message: string; unsettledHeader?: string };

/** A payment still settling is re-sent every 3 s for about half a minute before the page hands it to the user. */
const SETTLE_ATTEMPTS = 10;
const SETTLE_RETRY_MS = 3_000;

/** USDC base units shown to the cent, rounded down (never more than the wallet holds), in integer math. */
function usdc(units: bigint) {
  const cents = units / USDC_UNITS_PER_CENT;
  return `${cents / 100n}.${String(cents % 100n).padStart(2, "0")} USDC`;
}
const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

function connectorLabel(connector: Connector) {
  if (connector.id === "injected") return "Browser wallet (MetaMask, Rabby, Coinbase Wallet…)";
  return connector.name;
}

function PayWithWallet({ amountCents, requirement }: { amountCents: number; requirement: X402Requirement }) {
  const queryClient = useQueryClient();
  const chainId = chainIdOf(requirement.network);
  const networkName = NETWORK_NAMES[requirement.network] ?? requirement.network;
  const needed = BigInt(requirement.maxAmountRequired);
  const { address, chainId: walletChainId, status, connector } = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const disconnect = useDisconnect();
  const switchChain = useSwitchChain();
  const signTypedData = useSignTypedData();
  const balance = useReadContract({
    address: requirement.asset as Hex,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: address ? [address] : undefined,
    chainId,
    query: { enabled: Boolean(address) },
  });
  const account = useQuery(accountQuery());
  const [stage, setStage] = useState<Stage>({ step: "ready" });

  const connected = status === "connected" && address;
  const wrongChain = Boolean(connected) && walletChainId !== chainId;
  const isShort = balance.data !== undefined && balance.data < needed;
  const busy = stage.step === "requesting" || stage.step === "signing" || stage.step === "settling";
  const fail = (failure: WalletFailure, message: string) => setStage({ step: "failed", failure, message });

  async function pay() {
    if (!address) return;
    setStage({ step: "requesting" });
    try {
      // A fresh challenge each time: the amount signed is the one the service asks for now.
      const fresh = await fetchChallenge(amountCents);
      if (walletChainId !== chainId) {
        try {
          await switchChain.mutateAsync({ chainId });
        } catch (error) {
          if (isUserRejection(error)) {
            fail("rejected", `You declined the switch to ${networkName} in your wallet. Nothing was paid.`);
          } else {
            fail(
              "wrong_chain",
              `Your wallet is on another network. Switch it to ${networkName}, then try again.`,
            );
          }
          return;
        }
      }
      const current = await balance.refetch();
      if (current.data !== undefined && current.data < BigInt(fresh.maxAmountRequired)) {
        fail(
          "short",
          `This wallet holds ${usdc(current.data)} on ${networkName}; the top-up needs ${usdc(BigInt(fresh.maxAmountRequired))}. Nothing was signed.`,
        );
        return;
      }
      setStage({ step: "signing" });
      const { authorization, typedData } = authorizationTypedData(
        fresh,
        address,
        Math.floor(Date.now() / 1000),
      );
      let signature: Hex;
      try {
        signature = await signTypedData.mutateAsync({ ...typedData, account: address });
      } catch (error) {
        if (isUserRejection(error)) {
          fail("rejected", "You declined the signature in your wallet. Nothing was paid.");
        } else {
          fail(
            "other",
            `The wallet did not sign: ${(error as { shortMessage?: string }).shortMessage ?? (error as Error).message}`,
          );
        }
        return;
      }
      await settle(paymentHeader(fresh, authorization, signature));
    } catch (error) {
      const { failure, message } = settlementFailure(error);
      fail(failure, message);
    }
  }

  /**
   * Sends a signed payment and waits for its credit. While the service reports it still settling, the same
   * header is sent again (the API's own advice); a new signature could pay twice.
   */
  async function settle(header: string) {
    setStage({ step: "settling" });
    for (let attempt = 1; ; attempt++) {
      try {
        const topup = await bffFetch<Topup>("/bff/topups", {
          method: "POST",
          body: { amount: amountCents / 100, coin: "USDCBASE" },
          headers: { "x-payment": header },
        });
        setStage({ step: "credited", topup });
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: ["account"] }),
          queryClient.invalidateQueries({ queryKey: ["topups"] }),
          balance.refetch(),
        ]);
        return;
      } catch (error) {
        if (isStillSettling(error) && attempt < SETTLE_ATTEMPTS) {
          await new Promise((resolve) => setTimeout(resolve, SETTLE_RETRY_MS));
          continue;
        }
        const { failure, message } = settlementFailure(error);
        setStage({
          step: "failed",
          failure,
          message,
          unsettledHeader: failure === "unsettled" ? header : undefined,
        });
        return;
      }
    }
  }

  return (
    <section
      aria-labelledby="wallet-heading"
      className="space-y-4 rounded border border-zinc-200 p-4 dark:border-zinc-800"
    >
      <h2 id="wallet-heading" className="text-lg font-semibold">
        Pay {formatUsd(amountCents)} in USDC on {networkName}
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        You sign a USDC transfer authorization for exactly {usdc(needed)}; the service submits it and pays the
        gas. Nothing leaves your wallet before you sign.
      </p>

      {!connected ? (
        <div className="space-y-2">
          <p className="text-sm font-medium">Connect a wallet</p>
          <ul className="flex flex-wrap gap-2">
            {connectors.map((option) => (
              <li key={option.uid}>
                <button
                  type="button"
                  disabled={connect.isPending}
                  onClick={() => connect.mutate({ connector: option })}
                  className={`rounded px-3 py-2 text-sm ${
                    option.id === DEMO_CONNECTOR_ID
                      ? "border border-dashed border-amber-500 bg-amber-50 text-amber-950 dark:bg-amber-950 dark:text-amber-100"
                      : "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900"
                  }`}
                >
                  Connect {connectorLabel(option)}
                </button>
              </li>
            ))}
          </ul>
          {connect.error && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {isUserRejection(connect.error)
                ? "You declined the connection in your wallet."
                : (connect.error as Error).name === "ProviderNotFoundError"
                  ? "No browser wallet was found. Install one (MetaMask, Rabby, Coinbase Wallet…) or use another payment method."
                  : connect.error.message}
            </p>
          )}
        </div>
      ) : (
        <dl className="grid gap-2 text-sm sm:grid-cols-[max-content_1fr]">
          <dt className="text-zinc-600 dark:text-zinc-400">Wallet</dt>
          <dd>
            <span data-testid="wallet-address" title={address}>
              {short(address)}
            </span>{" "}
            via {connector ? connectorLabel(connector) : "wallet"}{" "}
            <button type="button" className="ml-2 underline" onClick={() => disconnect.mutate({})}>
              Disconnect
            </button>
          </dd>
          <dt className="text-zinc-600 dark:text-zinc-400">Network</dt>
          <dd>
            {wrongChain ? (
              <span className="text-amber-800 dark:text-amber-300">
                Your wallet is on another network.{" "}
                <button
                  type="button"
                  className="underline"
                  onClick={() =>
                    switchChain.mutate(
                      { chainId },
                      { onError: () => fail("wrong_chain", `The wallet did not switch to ${networkName}.`) },
                    )
                  }
                >
                  Switch to {networkName}
                </button>
              </span>
            ) : (
              networkName
            )}
          </dd>
          <dt className="text-zinc-600 dark:text-zinc-400">USDC balance</dt>
          <dd data-testid="usdc-balance">
            {balance.data !== undefined
              ? usdc(balance.data)
              : balance.error
                ? `not readable now (${(balance.error as { shortMessage?: string }).shortMessage ?? balance.error.message})`
                : "…"}
          </dd>
        </dl>
      )}

      {connected && isShort && stage.step !== "credited" && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          This wallet does not hold enough USDC on {networkName} for this top-up ({usdc(needed)} needed).
        </p>
      )}

      {connected && stage.step !== "credited" && (
        <button
          type="button"
          // Checking a payment already signed needs no funds: they may be on their way to us.
          disabled={
            busy ||
            (!(stage.step === "failed" && stage.unsettledHeader) && (isShort || balance.data === undefined))
          }
          onClick={() =>
            stage.step === "failed" && stage.unsettledHeader ? settle(stage.unsettledHeader) : pay()
          }
          className="rounded bg-emerald-700 px-4 py-2 text-white disabled:opacity-50"
        >
          {stage.step !== "failed"
            ? `Pay ${usdc(needed)}`
            : stage.unsettledHeader
              ? "Check again"
              : "Try again (sign a new authorization)"}
        </button>
      )}

      <Progress stage={stage} networkName={networkName} />

      {stage.step === "failed" && (
        <p role="alert" data-testid="wallet-error" className="text-red-700 dark:text-red-400">
          {stage.message}
        </p>
      )}

      {stage.step === "credited" && (
        <div
          role="status"
          className="space-y-1 rounded border border-emerald-400 bg-emerald-50 p-3 text-emerald-950 dark:bg-emerald-950 dark:text-emerald-100"
        >
          <p className="font-semibold">Credited {formatApiUsd(stage.topup.credited_usd)}.</p>
          {stage.topup.payments[0] && (
            <p className="break-all text-sm">
              Transaction: <code data-testid="tx-hash">{stage.topup.payments[0].tx_hash}</code>
            </p>
          )}
          <p>
            Your balance is now <strong>{account.data ? formatApiUsd(account.data.balance_usd) : "…"}</strong>
            .
          </p>
        </div>
      )}
    </section>
  );
}

const STEPS = [
  { step: "signing", label: "Sign in your wallet" },
  { step: "settling", label: "Settle on chain" },
  { step: "credited", label: "Credited to your balance" },
] as const;

/** The staged progress of a payment, with the current step marked. */
function Progress({ stage, networkName }: { stage: Stage; networkName: string }) {
  if (stage.step === "ready" || stage.step === "failed") return null;
  const status =
    stage.step === "requesting"
      ? "Getting the payment request…"
      : stage.step === "signing"
        ? "Waiting for your signature in the wallet…"
        : stage.step === "settling"
          ? `Settling the payment on ${networkName}…`
          : "Payment settled.";
  const index = STEPS.findIndex((item) => item.step === stage.step);
  // Done: every step before the current one, and the last step once reached; active: the one under way.
  const stateOf = (position: number) =>
    position < index || (position === index && stage.step === "credited")
      ? "done"
      : position === index
        ? "active"
        : "upcoming";
  const looks = {
    done: "text-emerald-700 dark:text-emerald-400",
    active: "font-semibold text-zinc-900 dark:text-zinc-100",
    upcoming: "text-zinc-500",
  };
  return (
    <div className="space-y-2">
      <ol className="flex flex-wrap gap-4 text-sm">
        {STEPS.map((item, position) => {
          const state = stateOf(position);
          return (
            <li
              key={item.step}
              data-state={state}
              aria-current={state === "active" ? "step" : undefined}
              className={`flex items-center gap-1.5 ${looks[state]}`}
            >
              <span
                aria-hidden="true"
                className={`inline-flex size-5 items-center justify-center rounded-full border text-xs ${
                  state === "done"
                    ? "border-emerald-600 bg-emerald-600 text-white"
                    : state === "active"
                      ? "animate-pulse border-zinc-900 dark:border-zinc-100"
                      : "border-zinc-400"
                }`}
              >
                {state === "done" ? "✓" : position + 1}
              </span>
              {item.label}
              {state === "done" && <span className="sr-only"> (done)</span>}
            </li>
          );
        })}
      </ol>
      <p role="status" data-testid="wallet-stage" className="text-sm">
        {status}
      </p>
    </div>
  );
}
