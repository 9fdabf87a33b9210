/**
 * A bcoin full node in regtest for the node suite, with Bitcoin Core's regtest address and key formats
 * (`bcrt1…`, `tpub…`) instead of bcoin's own (`rb1…`, `rpub…`), an in-memory chain (no leveldown needed)
 * and a wallet that mines and pays. Run as its own process; prints one JSON line once its RPC answers.
 * Usage: node bcoin-regtest.mjs <node rpc port> <wallet rpc port> <api key>
 */
import bcoin from "bcoin";

const [nodePort, walletPort, apiKey] = process.argv.slice(2);
// The wallet RPC prints addresses for the primary network, so regtest is made primary.
bcoin.set("regtest");
const regtest = bcoin.Network.get("regtest");
Object.assign(regtest.keyPrefix, {
  privkey: 0xef,
  xpubkey: 0x043587cf,
  xprivkey: 0x04358394,
  xpubkey58: "tpub",
  xprivkey58: "tprv",
});
Object.assign(regtest.addressPrefix, { pubkeyhash: 0x6f, scripthash: 0xc4, bech32: "bcrt" });

const node = new bcoin.FullNode({
  network: "regtest",
  memory: true,
  workers: false,
  listen: false,
  selfish: true,
  logLevel: "error",
  httpHost: "127.0.0.1",
  httpPort: Number(nodePort),
  apiKey,
  walletHttpHost: "127.0.0.1",
  walletHttpPort: Number(walletPort),
});
node.use(bcoin.wallet.plugin);
await node.open();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
const stop = async () => {
  await node.close().catch(() => undefined);
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
