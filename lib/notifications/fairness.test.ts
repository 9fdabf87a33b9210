import { describe, expect, it } from "vitest";
import {
  ACCOUNT_SHARE,
  type Candidate,
  CONCURRENCY,
  chooseFairly,
  closedNow,
  ENDPOINT_SHARE,
  noSlotsUsed,
  RESERVED_SLOTS,
  type SlotUse,
} from "./fairness";

let nextId = 1;
const due = (accountId: number, endpointId: number, count: number, failing = false): Candidate[] =>
  Array.from({ length: count }, () => ({ id: nextId++, accountId, endpointId, failing }));

/** What is under way once `chosen` has started on top of `use`. */
function started(use: SlotUse, chosen: Candidate[]): SlotUse {
  const byAccount = new Map(use.byAccount);
  const byEndpoint = new Map(use.byEndpoint);
  for (const c of chosen) {
    byAccount.set(c.accountId, (byAccount.get(c.accountId) ?? 0) + 1);
    const endpoint = byEndpoint.get(c.endpointId);
    byEndpoint.set(c.endpointId, { count: (endpoint?.count ?? 0) + 1, failing: c.failing });
  }
  return { inFlight: use.inFlight + chosen.length, byAccount, byEndpoint };
}

describe("sharing the delivery slots", () => {
  it("lets one account use half the slots, one endpoint its share, a failing endpoint one", () => {
    const chosen = chooseFairly(due(1, 10, 100), noSlotsUsed());
    expect(chosen).toHaveLength(Math.min(ENDPOINT_SHARE, ACCOUNT_SHARE));
    const failing = chooseFairly(due(2, 20, 50, true), noSlotsUsed());
    expect(failing).toHaveLength(1);
    const manyEndpoints = chooseFairly(
      Array.from({ length: 20 }, (_, i) => due(3, 30 + i, 5)).flat(),
      noSlotsUsed(),
    );
    expect(manyEndpoints).toHaveLength(ACCOUNT_SHARE);
  });

  it("starts the account with the fewest attempts under way first, whatever is due longer", () => {
    const use = started(noSlotsUsed(), due(1, 10, 3));
    const old = due(1, 11, 5);
    const fresh = due(2, 20, 1);
    const [first] = chooseFairly([...old, ...fresh], use);
    expect(first?.accountId).toBe(2);
  });

  it("keeps the last free slots for accounts with nothing under way: five busy accounts leave room for a sixth", () => {
    // Five accounts with ten failing (hanging) endpoints each, a long backlog on every one.
    const backlog = [1, 2, 3, 4, 5].flatMap((account) =>
      Array.from({ length: 10 }, (_, e) => due(account, account * 100 + e, 20, true)).flat(),
    );
    let use = noSlotsUsed();
    for (let round = 0; round < 10; round++) use = started(use, chooseFairly(backlog, use));
    expect(use.inFlight).toBe(CONCURRENCY - RESERVED_SLOTS);
    // Every busy account and every endpoint at its share is left out of the next query.
    const closed = closedNow(use);
    expect(closed.accounts.sort()).toEqual([1, 2, 3, 4, 5]);
    // A sixth account's delivery, due last, starts at once.
    const sixth = due(6, 600, 1);
    expect(chooseFairly([...backlog, ...sixth], use)).toEqual(sixth);
  });
});
