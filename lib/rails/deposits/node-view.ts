/**
 * What a deposit watcher's node says of itself (peers, the best chain it has heard of, its newest block), and
 * the rule that tells from it whether a node that answers is current. Pure: health applies it to the view the
 * last poll saved.
 */

/** What a watcher's node said of itself at its last poll; null: this kind of node does not say. */
export type NodeView = { tip: number; peers: number | null; headers: number | null; tipAt: Date | null };

/**
 * What a node in touch with its network shows: at least `minPeers` peers (0: not checked) and a newest block
 * younger than `maxTipAgeSeconds` (null: not checked); `blockSeconds` is the chain's usual block interval.
 */
export type NodeExpectations = { minPeers: number; maxTipAgeSeconds: number | null; blockSeconds: number };

/** A node whose best chain is this many blocks short of the one it has heard of is catching up, not current. */
const CATCHING_UP_BLOCKS = 2;

/** 150 -> "2.5 minutes", 2_820 -> "47 minutes", 7_200 -> "2 hours". */
function duration(seconds: number): string {
  if (seconds >= 5_400) return `${Math.round(seconds / 3_600)} hours`;
  const count = seconds / 60 < 10 ? Number((seconds / 60).toFixed(1)) : Math.round(seconds / 60);
  return count === 1 ? "1 minute" : `${count} minutes`;
}

/**
 * Why a node that answers is not current, in plain words; null when nothing says so. A node cut off from its
 * peers answers every call and sees no new block: its own tip looks current to it, so the scan shows no lag.
 * The first cause found is named: no peers explains the rest.
 */
export function nodeBehind(view: NodeView, expected: NodeExpectations, now: Date): string | null {
  if (expected.minPeers > 0 && view.peers !== null && view.peers < expected.minPeers) {
    return view.peers === 0
      ? "Its node has no peers: new blocks and payments do not reach it."
      : `Its node has ${view.peers} of the ${expected.minPeers} peers it should have: it may not see new blocks.`;
  }
  if (view.headers !== null && view.headers - view.tip >= CATCHING_UP_BLOCKS) {
    return `Its node is catching up: ${view.headers - view.tip} blocks behind the chain it has heard of.`;
  }
  if (expected.maxTipAgeSeconds !== null && view.tipAt !== null) {
    const age = (now.getTime() - view.tipAt.getTime()) / 1000;
    if (age > expected.maxTipAgeSeconds) {
      return (
        `Its node's newest block is ${duration(age)} old, where one comes about every ` +
        `${duration(expected.blockSeconds)}: it may be cut off from the network.`
      );
    }
  }
  return null;
}
