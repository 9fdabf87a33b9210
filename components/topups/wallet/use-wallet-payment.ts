"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useReducer } from "react";
import { erc20Abi } from "viem";
import { useConnection, useReadContract, useSignTypedData, useSwitchChain } from "wagmi";
import { accountQuery } from "@/lib/dashboard/queries/account";
import { bffFetch } from "@/lib/dashboard/queries/bff-fetch";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import type { Topup } from "@/lib/dashboard/queries/types";
import {
  authorizationTypedData,
  chainIdOf,
  type Hex,
  paymentHeader,
  type X402Requirement,
} from "@/lib/dashboard/wallet/authorization";
import { X402_COIN } from "@/lib/rails/registry";
import { fetchChallenge } from "./challenge";
import { networkName, usdc, walletErrorText } from "./format";
import { isStillSettling, isUserRejection, settlementFailure, type WalletFailure } from "./wallet-failures";

export type Stage =
  | { step: "ready" }
  | { step: "requesting" }
  | { step: "signing" }
  | { step: "settling" }
  | { step: "credited"; topup: Topup }
  | { step: "failed"; failure: WalletFailure; message: string; unsettledHeader?: string };

type StageEvent =
  | { type: "request" | "sign" | "settle" }
  | { type: "credit"; topup: Topup }
  | { type: "fail"; failure: WalletFailure; message: string; unsettledHeader?: string };

/** The payment's steps: ready → requesting → signing → settling → credited, or failed from any of them. */
function stageReducer(_stage: Stage, event: StageEvent): Stage {
  switch (event.type) {
    case "request":
      return { step: "requesting" };
    case "sign":
      return { step: "signing" };
    case "settle":
      return { step: "settling" };
    case "credit":
      return { step: "credited", topup: event.topup };
    case "fail":
      return {
        step: "failed",
        failure: event.failure,
        message: event.message,
        unsettledHeader: event.unsettledHeader,
      };
  }
}

/** A payment still settling is re-sent every 3 s for about half a minute before the page hands it to the user. */
const SETTLE_ATTEMPTS = 10;
const SETTLE_RETRY_MS = 3_000;

/**
 * The wallet payment's flow: a fresh challenge, the switch to the payment's chain, the balance check, the
 * signature, then settlement. While the service reports a payment still settling, the same header is sent
 * again (the API's own advice) by the mutation's retry; a new signature could pay twice.
 */
export function useWalletPayment(amountCents: number, requirement: X402Requirement) {
  const queryClient = useQueryClient();
  const chainId = chainIdOf(requirement.network);
  const network = networkName(requirement.network);
  const needed = BigInt(requirement.maxAmountRequired);
  const { address, chainId: walletChainId, status, connector } = useConnection();
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
  const [stage, dispatch] = useReducer(stageReducer, { step: "ready" });
  const fail = (failure: WalletFailure, message: string) => dispatch({ type: "fail", failure, message });

  const settlement = useMutation({
    mutationFn: (header: string) =>
      bffFetch<Topup>("/bff/topups", {
        method: "POST",
        body: { amount: amountCents / 100, coin: X402_COIN.code },
        headers: { "x-payment": header },
      }),
    retry: (failureCount, error) => isStillSettling(error) && failureCount < SETTLE_ATTEMPTS - 1,
    retryDelay: SETTLE_RETRY_MS,
    onSuccess: async (topup) => {
      dispatch({ type: "credit", topup });
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.account() }),
        queryClient.invalidateQueries({ queryKey: queryKeys.topups.all() }),
        balance.refetch(),
      ]);
    },
    onError: (error, header) => {
      const { failure, message } = settlementFailure(error);
      dispatch({
        type: "fail",
        failure,
        message,
        unsettledHeader: failure === "unsettled" ? header : undefined,
      });
    },
  });

  /** Sends a signed payment and waits for its credit (or its failure, kept in the stage). */
  function settle(header: string) {
    dispatch({ type: "settle" });
    settlement.mutate(header);
  }

  async function pay() {
    if (!address) return;
    dispatch({ type: "request" });
    try {
      // A fresh challenge each time: the amount signed is the one the service asks for now.
      const fresh = await fetchChallenge(amountCents);
      if (walletChainId !== chainId) {
        try {
          await switchChain.mutateAsync({ chainId });
        } catch (error) {
          if (isUserRejection(error)) {
            fail("rejected", `You declined the switch to ${network} in your wallet. Nothing was paid.`);
          } else {
            fail(
              "wrong_chain",
              `Your wallet is on another network. Switch it to ${network}, then try again.`,
            );
          }
          return;
        }
      }
      const current = await balance.refetch();
      if (current.data !== undefined && current.data < BigInt(fresh.maxAmountRequired)) {
        fail(
          "short",
          `This wallet holds ${usdc(current.data)} on ${network}; the top-up needs ${usdc(BigInt(fresh.maxAmountRequired))}. Nothing was signed.`,
        );
        return;
      }
      dispatch({ type: "sign" });
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
          fail("other", `The wallet did not sign: ${walletErrorText(error as Error)}`);
        }
        return;
      }
      settle(paymentHeader(fresh, authorization, signature));
    } catch (error) {
      const { failure, message } = settlementFailure(error);
      fail(failure, message);
    }
  }

  const connected = status === "connected" && address ? address : undefined;
  return {
    stage,
    pay,
    /** Sends a payment already signed again; it needs no funds, they may be on their way to us. */
    checkAgain: stage.step === "failed" && stage.unsettledHeader ? stage.unsettledHeader : undefined,
    settle,
    fail,
    chainId,
    network,
    needed,
    connected,
    connector,
    wrongChain: Boolean(connected) && walletChainId !== chainId,
    switchChain,
    balance,
    account: account.data,
  };
}

export type WalletPaymentFlow = ReturnType<typeof useWalletPayment>;
