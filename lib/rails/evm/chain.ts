import "server-only";
import {
  BaseError,
  BlockNotFoundError,
  type PublicClient,
  parseAbiItem,
  RpcError,
  RpcRequestError,
} from "viem";
import { readCursor, saveCursor } from "../deposits/cursor";
import {
  forgetPayment,
  type ObservedPayment,
  observePayments,
  recordConfirmingBlockTimes,
  setConfirmations,
  trackedPayments,
} from "../deposits/sightings";
import { stillWatched, type WatchedAddresses, type WatchedEntry } from "../deposits/watched-set";

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
/** Blocks read per poll at most, so a watcher that was down catches up in bounded steps. */
const MAX_BLOCKS_PER_POLL = 200n;
/** On its first run the watcher starts this far behind the head, to see payments made just before. */
const FIRST_RUN_LOOKBACK = 64n;
/** Blocks per `eth_getLogs` call at most; a range the node refuses (too many results) is halved. */
const LOG_RANGE = 50n;
/** Block headers fetched at once when payments are re-checked. */
const PARALLEL_READS = 16;

/** A token `Transfer` log: the recipient in lower-case hex. */
type TokenTransfer = {
  to: string;
  value: bigint;
  txHash: string;
  logIndex: number;
  blockNumber: number;
  blockHash: string;
};

/** True when the node answered with a JSON-RPC error (it refused the call), not when it could not be reached. */
const refusedByNode = (error: unknown) =>
  error instanceof BaseError &&
  Boolean(error.walk((e) => e instanceof RpcError || e instanceof RpcRequestError));

/**
 * Every `Transfer` log of `token` in blocks [from, to], filtered by the contract and the event only; the
 * caller matches recipients against its own watched set. Filtering by the token rather than by our addresses
 * keeps one call per range whatever the number watched: geth refuses more than 1000 values in one topic
 * position (providers cap it lower), and splitting the list would read the same blocks once per 1000
 * addresses (100 calls at 100,000). What it costs instead is the token's own traffic (a few hundred
 * USDT transfers per Ethereum block), each matched by one map lookup. A range the node refuses (too many
 * results for a busy token) is halved until it passes.
 */
async function tokenTransfers(
  client: PublicClient,
  token: `0x${string}`,
  from: bigint,
  to: bigint,
  signal?: AbortSignal,
): Promise<TokenTransfer[]> {
  const found: TokenTransfer[] = [];
  const read = async (start: bigint, end: bigint): Promise<void> => {
    signal?.throwIfAborted();
    let logs: Awaited<ReturnType<typeof getTransferLogs>>;
    try {
      logs = await getTransferLogs(client, token, start, end);
    } catch (error) {
      if (start === end || !refusedByNode(error)) throw error;
      const middle = start + (end - start) / 2n;
      await read(start, middle);
      await read(middle + 1n, end);
      return;
    }
    for (const log of logs) {
      const { to: recipient, value } = log.args;
      if (!recipient || !value || log.blockNumber === null || log.logIndex === null || !log.blockHash)
        continue;
      found.push({
        to: recipient.toLowerCase(),
        value,
        txHash: log.transactionHash,
        logIndex: log.logIndex,
        blockNumber: Number(log.blockNumber),
        blockHash: log.blockHash,
      });
    }
  };
  for (let start = from; start <= to; start += LOG_RANGE) {
    await read(start, start + LOG_RANGE - 1n < to ? start + LOG_RANGE - 1n : to);
  }
  return found;
}

/** What a payment in `blockNumber` counts as at `head`, for a top-up that needs `required`. */
type ConfirmationsOf = (blockNumber: number, required: number, head: bigint) => number;

/**
 * The token transfers in blocks [from, to] that pay a watched top-up, as payments: `payee` gives the watched
 * top-up an address (lower-case hex) belongs to, if any.
 */
export async function tokenPayments(range: {
  client: PublicClient;
  token: `0x${string}`;
  from: bigint;
  to: bigint;
  head: bigint;
  payee: (address: string) => WatchedEntry | undefined;
  confirmationsOf: ConfirmationsOf;
  signal?: AbortSignal;
}): Promise<ObservedPayment[]> {
  const observed: ObservedPayment[] = [];
  for (const transfer of await tokenTransfers(
    range.client,
    range.token,
    range.from,
    range.to,
    range.signal,
  )) {
    const entry = range.payee(transfer.to);
    if (!entry) continue;
    observed.push({
      topupId: entry.topupId,
      txHash: transfer.txHash,
      logIndex: transfer.logIndex,
      amountUnits: transfer.value,
      blockNumber: transfer.blockNumber,
      blockHash: transfer.blockHash,
      confirmations: range.confirmationsOf(transfer.blockNumber, entry.confirmationsRequired, range.head),
    });
  }
  return observed;
}

/**
 * The payments of each token in `tokens` (contract, coin code) in blocks [from, to]: its transfers to the
 * watched addresses of top-ups in that coin (`watched` keyed by lower-case hex). A token nobody waits for is
 * not read.
 */
export async function watchedTokenPayments(range: {
  client: PublicClient;
  tokens: Iterable<readonly [`0x${string}`, string]>;
  watched: WatchedAddresses<string>;
  from: bigint;
  to: bigint;
  head: bigint;
  confirmationsOf: ConfirmationsOf;
  signal?: AbortSignal;
}): Promise<ObservedPayment[]> {
  const observed: ObservedPayment[] = [];
  for (const [token, code] of range.tokens) {
    if (range.watched.count(code) === 0) continue;
    const payee = (address: string) => {
      const entry = range.watched.get(address);
      return entry?.coin === code ? entry : undefined;
    };
    observed.push(...(await tokenPayments({ ...range, token, payee })));
  }
  return observed;
}

const getTransferLogs = (client: PublicClient, token: `0x${string}`, fromBlock: bigint, toBlock: bigint) =>
  client.getLogs({ address: token, event: TRANSFER, fromBlock, toBlock, strict: true });

/**
 * The hashes of these blocks on the node's best chain now. A block the node does not have (its chain is
 * shorter for now, or a node behind a load balancer lags) is left out: unknown, not reorganised. Any
 * other failure is thrown, so a node that cannot be reached never makes payments look reorganised.
 */
async function blockHashes(client: PublicClient, numbers: number[]): Promise<Map<number, string>> {
  const hashes = new Map<number, string>();
  for (let i = 0; i < numbers.length; i += PARALLEL_READS) {
    const batch = numbers.slice(i, i + PARALLEL_READS);
    const blocks = await Promise.all(
      batch.map((number) =>
        client.getBlock({ blockNumber: BigInt(number) }).catch((error: unknown) => {
          if (error instanceof BlockNotFoundError) return null;
          throw error;
        }),
      ),
    );
    for (const block of blocks) {
      if (block?.number != null && block.hash) hashes.set(Number(block.number), block.hash);
    }
  }
  return hashes;
}

export type EvmChainPoll = {
  /** The watcher's name: its cursor and lease row. */
  name: string;
  network: string;
  client: PublicClient;
  /** Blocks below the head whose payments are re-checked every poll; deeper reorgs are not expected. */
  reorgWindow: number;
  /** Payments to watched addresses in blocks [from, to], with their confirmations at `head`. */
  scan: (from: bigint, to: bigint, head: bigint) => Promise<ObservedPayment[]>;
  confirmationsOf: ConfirmationsOf;
  signal?: AbortSignal;
  /** Told the head the poll read (the push's gap check compares it with the heads announced). */
  seenHead?: (head: number) => void;
};

/**
 * One poll of a chain read over Ethereum-style JSON-RPC (an EVM chain, or java-tron's `/jsonrpc`):
 *
 * 1. Payments still confirming or in the last `reorgWindow` blocks are checked against the best chain: one
 *    whose block hash changed is forgotten if it had not counted yet, and kept, unconfirmed and flagged for
 *    the operator if it had (never debited); its blocks are scanned again.
 * 2. A reorg below the cursor (the block it stopped at has another hash now) sends it back `reorgWindow`
 *    blocks, so payments the new branch carries are found.
 * 3. The next blocks are scanned, and the cursor saved with the hash of its block (after the time of the block
 *    that completed each payment's confirmations is written on it).
 */
export async function pollEvmChain(poll: EvmChainPoll): Promise<number[]> {
  const { client, name, network, signal } = poll;
  const window = BigInt(poll.reorgWindow);
  const head = await client.getBlockNumber();
  poll.seenHead?.(Number(head));
  const cursor = await readCursor(name);
  let scanned = cursor && cursor.scannedBlock >= 0 ? BigInt(cursor.scannedBlock) : head - FIRST_RUN_LOOKBACK;
  if (scanned > head) scanned = head;
  const touched = new Set<number>();

  const tracked = await trackedPayments(network, Number(head - window));
  const placed = tracked.filter((payment) => payment.blockNumber !== null);
  const hashes = await blockHashes(client, [
    ...new Set(placed.map((payment) => payment.blockNumber as number)),
  ]);
  for (const payment of placed) {
    const blockNumber = payment.blockNumber as number;
    const hash = hashes.get(blockNumber);
    if (hash === undefined) continue;
    if (hash !== payment.blockHash) {
      await forgetPayment(payment.id);
      if (BigInt(blockNumber) - 1n < scanned) scanned = BigInt(blockNumber) - 1n;
    } else {
      const confirmations = poll.confirmationsOf(blockNumber, payment.confirmationsRequired, head);
      if (confirmations === payment.confirmations) continue;
      await setConfirmations(payment.id, confirmations);
    }
    touched.add(payment.topupId);
  }

  if (cursor?.scannedHash && cursor.scannedBlock >= 0 && cursor.scannedBlock <= head) {
    const [hash] = (await blockHashes(client, [cursor.scannedBlock])).values();
    if (hash !== undefined && hash !== cursor.scannedHash) {
      const back = BigInt(cursor.scannedBlock) - window;
      if (back < scanned) scanned = back < -1n ? -1n : back;
    }
  }

  const from = scanned + 1n > 0n ? scanned + 1n : 0n;
  const to = head < from + MAX_BLOCKS_PER_POLL - 1n ? head : from + MAX_BLOCKS_PER_POLL - 1n;
  let last = scanned;
  let lastHash: string | null = null;
  if (from <= to) {
    // The hash is read before the blocks: should they change meanwhile, the next poll sees the new hash.
    lastHash = (await client.getBlock({ blockNumber: to })).hash;
    signal?.throwIfAborted();
    const observed = await poll.scan(from, to, head);
    const watched = await stillWatched(observed.map((payment) => payment.topupId));
    for (const id of await observePayments(
      network,
      observed.filter((payment) => watched.has(payment.topupId)),
    )) {
      touched.add(id);
    }
    last = to;
  } else if (last >= 0n) {
    lastHash = cursor?.scannedBlock === Number(last) ? (cursor.scannedHash ?? null) : null;
  }
  // Only when a payment changed: one that reached its confirmations is among them.
  if (touched.size > 0) {
    await recordConfirmingBlockTimes(network, async (height) => {
      if (BigInt(height) > head) return undefined;
      const block = await client.getBlock({ blockNumber: BigInt(height) });
      return new Date(Number(block.timestamp) * 1000);
    });
  }
  signal?.throwIfAborted();
  await saveCursor(
    name,
    { scannedBlock: Number(last), scannedHash: lastHash, headBlock: Number(head) },
    cursor,
  );
  return [...touched];
}
