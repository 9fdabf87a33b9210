"use client";

import { useDisconnect } from "wagmi";
import { TEXT_STYLES } from "../../ui/alert";
import { connectorLabel, shortAddress, usdc, walletErrorText } from "./format";
import type { WalletPaymentFlow } from "./use-wallet-payment";

/** The connected wallet: its address (with a disconnect), its network (with a switch) and its USDC balance. */
export function WalletFacts({ flow, address }: { flow: WalletPaymentFlow; address: string }) {
  const disconnect = useDisconnect();
  const { balance, network } = flow;
  return (
    <dl className="grid gap-2 text-sm sm:grid-cols-[max-content_1fr]">
      <dt className={TEXT_STYLES.muted}>Wallet</dt>
      <dd>
        <span data-testid="wallet-address" title={address}>
          {shortAddress(address)}
        </span>{" "}
        via {flow.connector ? connectorLabel(flow.connector) : "wallet"}{" "}
        <button type="button" className="ml-2 underline" onClick={() => disconnect.mutate({})}>
          Disconnect
        </button>
      </dd>
      <dt className={TEXT_STYLES.muted}>Network</dt>
      <dd>
        {flow.wrongChain ? (
          <span className="text-amber-800 dark:text-amber-300">
            Your wallet is on another network.{" "}
            <button
              type="button"
              className="underline"
              onClick={() =>
                flow.switchChain.mutate(
                  { chainId: flow.chainId },
                  { onError: () => flow.fail("wrong_chain", `The wallet did not switch to ${network}.`) },
                )
              }
            >
              Switch to {network}
            </button>
          </span>
        ) : (
          network
        )}
      </dd>
      <dt className={TEXT_STYLES.muted}>USDC balance</dt>
      <dd data-testid="usdc-balance">
        {balance.data !== undefined
          ? usdc(balance.data)
          : balance.error
            ? `not readable now (${walletErrorText(balance.error)})`
            : "…"}
      </dd>
    </dl>
  );
}
