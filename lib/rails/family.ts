/**
 * What a coin family is made of. Each family has a folder under lib/rails (utxo, evm, tron, monero, x402)
 * holding its facts (client-safe: codes, decimals, confirmations, rate id…), and its server parts: address
 * derivation and validation per watch-only key, the payment URI, its configuration slice and its watcher.
 * lib/rails/registry.ts lists the coins; lib/rails/families.ts the families' server parts. Types only here,
 * so the browser may read the facts' shapes.
 */
import type { ConfigSlice } from "@/lib/config/slice";
import type { DepositWatcher } from "./deposits/watcher";

export type FamilyId = "utxo" | "evm" | "tron" | "monero" | "x402";

/** The watch-only key a deposit address is derived from; ETH and its tokens share one. */
export type DepositChain = "bitcoin" | "litecoin" | "ethereum" | "tron" | "monero";

/** A coin's facts, the same on every deployment. */
type CommonFacts = {
  code: string;
  name: string;
  /** The `deposit_network` shown to clients. */
  network: string;
  /** The network as a wallet app names it, shown beside the address. */
  networkLabel: string;
  family: FamilyId;
  /** Decimals of the smallest unit on chain (satoshi, piconero, wei, token units). */
  decimals: number;
  /** Decimals the asked amount is rounded up to, so people can type it. */
  displayDecimals: number;
};

/** A coin paid to an address derived for the top-up, found by a watcher. */
export type DepositCoinFacts = CommonFacts & {
  method: "deposit";
  chain: DepositChain;
  /** Confirmations before a payment counts, as the exchanges and BTCPay-style processors use. */
  confirmations: number;
  /** CoinGecko's id of the coin, for its USD price. */
  rateId: string;
  /** The fixed USD price demo mode quotes (labelled `demo-fixed`). */
  demoRate: string;
  /** A public explorer's page of a transaction, `{tx}` standing for its id (its family may withhold it). */
  explorerTxUrl: string;
  /** A token: its contract on the chain, and the variable that names another one. */
  token?: { contract: string; setting: string };
};

/** A coin paid by a signed authorization the service settles itself (x402). */
export type X402CoinFacts = CommonFacts & {
  method: "x402";
  /** The token actually sent, as the top-up names it (`deposit_coin`). */
  depositCoin: string;
};

export type CoinFacts = DepositCoinFacts | X402CoinFacts;

/** Which address format a chain's addresses take: the same key gives `bc1…` on main, `bcrt1…` on regtest. */
export type AddressNet = "main" | "regtest";

/** What every family's watch-only keys are, by chain (each family reads and checks its own). */
export type WatchOnlyKeys = {
  /** Account-level extended public key, e.g. of m/84'/0'/0' (xpub, zpub, any version bytes). */
  bitcoin?: string;
  /** Account-level extended public key, e.g. of m/84'/2'/0' (xpub, Ltub, zpub, Mtub, …). */
  litecoin?: string;
  /** Account-level extended public key of m/44'/60'/0' (ETH and its ERC-20 tokens). */
  ethereum?: string;
  /** Account-level extended public key of m/44'/195'/0'. */
  tron?: string;
  /** 64-hex private view key and 64-hex public spend key of a Monero wallet. */
  monero?: { viewKey: string; spendPublicKey: string };
};

/**
 * One chain's watch-only key (`Key`: an extended public key's text, or Monero's pair): where it is configured,
 * how it is checked, and what it derives.
 */
export type ChainKeys<Key = unknown> = {
  chain: DepositChain;
  /** The variables it is read from, by part (a BIP32 chain has one: `key`). */
  settings: Record<string, string>;
  /** The key from the environment's values; undefined when none is set. */
  read(values: Record<string, string | undefined>): Key | undefined;
  /** What is wrong with a configured key, each naming its variable; [] when usable. */
  problems(key: Key): string[];
  /** The address of derivation index `index` (0 <= index < 2^31); DepositKeyError for an unusable key. */
  derive(key: Key, index: number, net: AddressNet): string;
  /** Whether `address` has the form `derive` gives, checksum included. */
  isValidAddress(address: string, net: AddressNet): boolean;
  /** A fresh random key for demo mode: public parts only (and Monero's view key). */
  demoKey(): Key;
  /** The variables' values for a key (tests and benchmarks start an app with them). */
  env(key: Key): Record<string, string>;
};

/** What to ask a wallet to pay: one coin, one address, one exact amount. */
export type PaymentRequest = {
  coin: string;
  address: string;
  /** Decimal string in whole coin units, e.g. "0.00150000". */
  amount: string;
  /** The same amount in the smallest unit (satoshi, piconero, wei, token units). */
  amountUnits: bigint;
  /** ERC-20 / TRC-20 contract; required for tokens, ignored otherwise. */
  tokenContract?: string;
  /** EVM chain id (EIP-155); default 1 (Ethereum mainnet). */
  chainId?: number;
};

/** A watcher a family runs when its node is configured. */
export type WatcherPlan = { name: string; networks: readonly string[]; create: () => DepositWatcher };

/** The server parts of a family paid by deposits. */
export type DepositFamily = {
  id: FamilyId;
  method: "deposit";
  /** Its watch-only keys, one per chain it derives addresses on. */
  chains: readonly ChainKeys[];
  /** Its configuration block (nodes, contracts, address format). */
  settings: ConfigSlice<unknown, object>;
  /** The address format its chain uses here. */
  addressNet(chain: DepositChain): AddressNet;
  /** The payment URI a wallet opens (or scans) to pay `request` exactly; RangeError when it is inconsistent. */
  paymentUri(coin: DepositCoinFacts, request: PaymentRequest): string;
  /** What the URI needs beyond the address and amount: the token contract, the chain id. */
  uriContext(coin: DepositCoinFacts): Pick<PaymentRequest, "tokenContract" | "chainId">;
  /** The explorer link for the coin's payments here, or undefined (a regtest chain has none). */
  explorerTxUrl(coin: DepositCoinFacts): string | undefined;
  /** The watchers it runs with its settings (none when no node is configured). */
  watchers(keys: WatchOnlyKeys): WatcherPlan[];
};

/** The server parts of the x402 family: its settings and the rail that verifies and settles. */
export type X402Family = {
  id: "x402";
  method: "x402";
  settings: ConfigSlice<unknown, object>;
  /** Verifies and settles authorizations on chain. */
  rail: () => Promise<unknown>;
};

export type RailFamily = DepositFamily | X402Family;
