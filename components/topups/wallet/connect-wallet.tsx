"use client";

import { useConnect, useConnectors } from "wagmi";
import { Alert } from "../../ui/alert";
import { connectorLabel } from "./format";
import { DEMO_CONNECTOR_ID } from "./wagmi-config";
import { isUserRejection } from "./wallet-failures";

/** The wallets this browser offers (and the demo wallet in demo mode), each a button that connects it. */
export function ConnectWallet() {
  const connectors = useConnectors();
  const connect = useConnect();
  return (
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
        <Alert className="text-sm">
          {isUserRejection(connect.error)
            ? "You declined the connection in your wallet."
            : (connect.error as Error).name === "ProviderNotFoundError"
              ? "No browser wallet was found. Install one (MetaMask, Rabby, Coinbase Wallet…) or use another payment method."
              : connect.error.message}
        </Alert>
      )}
    </div>
  );
}
