import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { QUIET_MS, servingRequest, servingRequests } from "./activity";

describe("request activity", () => {
  it("is serving while a request runs and for a short while after its answer, then quiet", async () => {
    let during = false;
    await servingRequest(async () => {
      during = servingRequests();
    });
    expect(during).toBe(true);
    const ended = performance.now();
    expect(servingRequests(ended + QUIET_MS / 2)).toBe(true);
    expect(servingRequests(ended + QUIET_MS + 1)).toBe(false);
  });

  it("counts a request that failed as ended", async () => {
    await expect(
      servingRequest(async () => {
        throw new Error("handler failed");
      }),
    ).rejects.toThrow("handler failed");
    expect(servingRequests(performance.now() + QUIET_MS + 1)).toBe(false);
  });
});
