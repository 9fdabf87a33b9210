import { inject } from "vitest";
import { describeUtxoDeposits } from "./utxo-scenarios";

// bcoin in regtest with Bitcoin Core's formats: the same watcher and scenarios as litecoind.
describeUtxoDeposits({
  coin: "BTC",
  watcher: "utxo:bitcoin",
  node: inject("nodes").bitcoin,
  addressPattern: /^bcrt1q/,
  unit: 0.001,
  unitUsd: 97,
  explorer: "https://explorer.example/btc/tx/{tx}",
  reorg: "bcoin",
});
