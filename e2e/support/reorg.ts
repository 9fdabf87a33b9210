/** Reorganising a local anvil chain under a watcher, as a real chain's reorg would. */
import { createPublicClient, type Hex, http } from "viem";

/**
 * anvil_reorg: the blocks from `blockNumber` up to the head are replaced by as many empty ones, so the
 * transactions in them are gone from the chain.
 */
export async function reorgAway(rpcUrl: string, blockNumber: bigint, hash: Hex): Promise<void> {
  const chain = createPublicClient({ transport: http(rpcUrl) });
  for (let attempt = 0; attempt < 5; attempt++) {
    const head = await chain.getBlockNumber();
    await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "anvil_reorg",
        params: [Number(head - blockNumber + 1n), []],
      }),
    });
    // A block mined between reading the head and the reorg leaves ours in place: try again.
    if ((await chain.getBlock({ blockNumber })).hash !== hash) return;
  }
  throw new Error(`block ${blockNumber} was not reorganised away`);
}
