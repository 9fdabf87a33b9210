"use client";

import { useQuery } from "@tanstack/react-query";
import { WagmiProvider } from "wagmi";
import { errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { chainIdOf, type Hex } from "@/lib/dashboard/wallet/authorization";
import { Alert } from "../../ui/alert";
import { challengeQuery } from "./challenge";
import { PayWithWallet } from "./pay-with-wallet";
import { walletConfig } from "./wagmi-config";

/** The wallet path: fetch the challenge, then connect, check chain and balance, sign, settle. */
export default function WalletPayment({
  amountCents,
  demoWallet,
}: {
  amountCents: number;
  demoWallet: Hex | undefined;
}) {
  const challenge = useQuery(challengeQuery(amountCents));
  if (challenge.isPending) return <p role="status">Getting the payment request…</p>;
  if (challenge.error) {
    return (
      <div className="space-y-2">
        <Alert>{errorMessage(challenge.error)}</Alert>
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
