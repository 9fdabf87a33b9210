import type { Connector } from "wagmi";
import { USDC_UNITS_PER_CENT } from "@/lib/rails/x402/requirements";

const NETWORK_NAMES: Record<string, string> = { base: "Base", "base-sepolia": "Base Sepolia" };

/** The x402 network's name for people. */
export const networkName = (network: string) => NETWORK_NAMES[network] ?? network;

/** USDC base units shown to the cent, rounded down (never more than the wallet holds), in integer math. */
export function usdc(units: bigint) {
  const cents = units / USDC_UNITS_PER_CENT;
  return `${cents / 100n}.${String(cents % 100n).padStart(2, "0")} USDC`;
}

export const shortAddress = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

export function connectorLabel(connector: Connector) {
  if (connector.id === "injected") return "Browser wallet (MetaMask, Rabby, Coinbase Wallet…)";
  return connector.name;
}

/** A wallet library error's short text. */
export const walletErrorText = (error: Error) =>
  (error as { shortMessage?: string }).shortMessage ?? error.message;
