/**
 * How one instance's delivery slots are shared, so that no account's slow or failing endpoints hold what other
 * accounts' deliveries need. Pure; the worker (lib/notifications/worker.ts) keeps the counts and asks here
 * which due deliveries to take.
 *
 * - An endpoint has at most ENDPOINT_SHARE attempts under way, and one whose deliveries are failing
 *   (`failing_since` set: a receiver that is down, or that holds every request until the send timeout) one.
 * - An account has at most half the slots.
 * - The last RESERVED_SLOTS free slots go only to accounts with nothing under way, so an account's first
 *   delivery starts at once however busy the others keep the worker.
 * - Of the deliveries due, the account with the fewest attempts under way goes first; within an account, the
 *   one due longest.
 */

/** Attempts one instance makes at once. */
export const CONCURRENCY = 16;
export const ENDPOINT_SHARE = 8;
export const FAILING_ENDPOINT_SHARE = 1;
export const ACCOUNT_SHARE = CONCURRENCY / 2;
export const RESERVED_SLOTS = CONCURRENCY / 4;

/** What this instance has under way, by account and by endpoint (with whether that endpoint is failing). */
export type SlotUse = {
  inFlight: number;
  byAccount: ReadonlyMap<number, number>;
  byEndpoint: ReadonlyMap<number, { count: number; failing: boolean }>;
};

export const noSlotsUsed = (): SlotUse => ({ inFlight: 0, byAccount: new Map(), byEndpoint: new Map() });

/** A due delivery, as the worker considers taking it. Candidates come oldest due first. */
export type Candidate = { id: number; accountId: number; endpointId: number; failing: boolean };

const endpointShare = (failing: boolean) => (failing ? FAILING_ENDPOINT_SHARE : ENDPOINT_SHARE);

/**
 * Endpoints and accounts that may start nothing more now: the query for candidates leaves their deliveries
 * out, so a long backlog of theirs does not hide other accounts' due deliveries.
 */
export function closedNow(use: SlotUse): { endpoints: number[]; accounts: number[] } {
  const free = CONCURRENCY - use.inFlight;
  return {
    endpoints: [...use.byEndpoint]
      .filter(([, endpoint]) => endpoint.count >= endpointShare(endpoint.failing))
      .map(([id]) => id),
    accounts: [...use.byAccount]
      .filter(([, count]) => count >= ACCOUNT_SHARE || (count > 0 && free <= RESERVED_SLOTS))
      .map(([id]) => id),
  };
}

/** Which of `candidates` to start now, in the order to start them. */
export function chooseFairly(candidates: readonly Candidate[], use: SlotUse): Candidate[] {
  const byAccount = new Map(use.byAccount);
  const byEndpoint = new Map([...use.byEndpoint].map(([id, endpoint]) => [id, endpoint.count]));
  let free = CONCURRENCY - use.inFlight;
  const left = [...candidates];
  const chosen: Candidate[] = [];
  const admissible = (candidate: Candidate) => {
    const account = byAccount.get(candidate.accountId) ?? 0;
    return (
      (byEndpoint.get(candidate.endpointId) ?? 0) < endpointShare(candidate.failing) &&
      account < ACCOUNT_SHARE &&
      (account === 0 || free > RESERVED_SLOTS)
    );
  };
  while (free > 0) {
    let best: number | undefined;
    for (const [index, candidate] of left.entries()) {
      if (!admissible(candidate)) continue;
      const bestAccount = best === undefined ? undefined : (left[best] as Candidate).accountId;
      if (
        bestAccount === undefined ||
        (byAccount.get(candidate.accountId) ?? 0) < (byAccount.get(bestAccount) ?? 0)
      ) {
        best = index;
      }
    }
    if (best === undefined) break;
    const [taken] = left.splice(best, 1) as [Candidate];
    chosen.push(taken);
    byAccount.set(taken.accountId, (byAccount.get(taken.accountId) ?? 0) + 1);
    byEndpoint.set(taken.endpointId, (byEndpoint.get(taken.endpointId) ?? 0) + 1);
    free -= 1;
  }
  return chosen;
}
