/**
 * A node that answers but is not current: two litecoinds of their own, ours peered with the other. Cut off
 * from its peer (`setnetworkactive false`), ours still answers every call and sees its own tip as current, so
 * the scan shows no lag; health must say so from what the node says of itself (no peers), the status page shows
 * the coin degraded, and both clear once the node is back in touch and has caught up. A tip far older than the
 * chain's pace is found the same way.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { callApp, type RunningApp, startApp } from "../support/app-server";
import { type Litecoind, startLitecoind } from "../support/coin-nodes";
import { until } from "../support/until";

type Watcher = {
  name: string;
  status: string;
  problem: string | null;
  tip: number | null;
  lag: number | null;
};

let ours: Litecoind;
let peer: Litecoind;
let app: RunningApp;
/** Mining needs no wallet: a block's reward goes to an anyone-can-spend script. */
let toAnyone: string;

const litecoinWatcher = async () =>
  ((await callApp(app, "/health")).watchers as Watcher[]).find((w) => w.name === "utxo:litecoin") as Watcher;
/** LTC's state on the public status page, once it is `state` (the page is recomputed every second). */
const litecoinOnStatusPage = (state: string) =>
  until(
    async () =>
      ((await callApp(app, "/status")).watchers as { coins: string[]; state: string }[]).find((w) =>
        w.coins.includes("LTC"),
      )?.state,
    (shown) => shown === state,
    `LTC ${state} on the status page`,
    10_000,
  );
const mine = async (node: Litecoind, count: number) => node.rpc("generatetodescriptor", [count, toAnyone]);
const tipOf = (node: Litecoind) => node.rpc<number>("getblockcount");
const connect = async () => {
  await ours.rpc("setnetworkactive", [true]);
  await ours.rpc("addnode", [peer.peerAddress, "onetry"]);
  await until(
    () => ours.rpc<number>("getconnectioncount"),
    (count) => count > 0,
    "peering",
  );
};

beforeAll(async () => {
  [ours, peer] = await Promise.all([startLitecoind(), startLitecoind(undefined, { p2p: true })]);
  toAnyone = (await ours.rpc<{ descriptor: string }>("getdescriptorinfo", ["raw(51)"])).descriptor;
  await connect();
  // The chain's newest block, three hours old: the peer mines it with its clock set back.
  await peer.rpc("setmocktime", [Math.floor(Date.now() / 1000) - 3 * 3600]);
  await mine(peer, 1);
  await peer.rpc("setmocktime", [0]);
  await until(
    () => tipOf(ours),
    (tip) => tip === 1,
    "the old block reaching our node",
  );
  app = await startApp({
    WATCHER_INTERVAL_MS: "300",
    LTC_RPC_URL: ours.rpcUrl,
    LTC_RPC_COOKIE_FILE: ours.cookieFile,
    LTC_CHAIN: "regtest",
    // A regtest node is alone and idle by design: the checks are off there unless asked for.
    WATCHER_MIN_PEERS: "1",
    WATCHER_MAX_TIP_AGE_BLOCKS: "12",
    // The status page is computed at most this often.
    STATUS_REFRESH_SECONDS: "1",
  });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await Promise.all([ours?.stop(), peer?.stop()]);
});

it("a tip hours old on a chain with a block every 2.5 minutes is behind until a new block comes", async () => {
  const stale = await until(litecoinWatcher, (w) => w.status !== "starting", "the first poll");
  expect(stale).toMatchObject({
    status: "behind",
    problem:
      "Its node's newest block is 3 hours old, where one comes about every 2.5 minutes: it may be cut off from the network.",
    tip: 1,
    lag: 0,
  });
  await litecoinOnStatusPage("degraded");

  await mine(peer, 1);
  const current = await until(litecoinWatcher, (w) => w.status === "ok", "the watcher after a new block");
  expect(current).toMatchObject({ problem: null, tip: 2 });
  await litecoinOnStatusPage("up");
}, 60_000);

it("cut off from its peer, the node is behind (no peers) while the chain goes on; back in touch, it clears", async () => {
  await until(litecoinWatcher, (w) => w.status === "ok", "the watcher before the cut");
  await ours.rpc("setnetworkactive", [false]);
  // The call only marks the peer for dropping: a block mined before it is gone can still reach our node.
  await until(
    () => ours.rpc<number>("getconnectioncount"),
    (count) => count === 0,
    "the peer dropped",
  );
  await mine(peer, 3);
  const cut = await until(litecoinWatcher, (w) => w.status === "behind", "the watcher of a node cut off");
  // Its own tip looks current to it: only its peers tell.
  expect(cut).toMatchObject({
    problem: "Its node has no peers: new blocks and payments do not reach it.",
    tip: 2,
    lag: 0,
  });
  await litecoinOnStatusPage("degraded");
  expect(await tipOf(peer)).toBe(5);

  await connect();
  const back = await until(
    litecoinWatcher,
    (w) => w.status === "ok" && w.tip === 5,
    "the watcher once its node caught up",
  );
  expect(back).toMatchObject({ problem: null, lag: 0 });
  await litecoinOnStatusPage("up");
}, 60_000);
