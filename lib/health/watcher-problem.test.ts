import { describe, expect, it } from "vitest";
import { watcherProblem } from "./watcher-problem";

describe("watcherProblem", () => {
  it("says nothing while the watcher is fine or starting", () => {
    expect(watcherProblem("ok", null, 30)).toBeNull();
    expect(watcherProblem("starting", null, 30)).toBeNull();
  });

  it.each([
    ["fetch failed: ECONNREFUSED", "The node does not accept connections."],
    ["fetch failed: ENOTFOUND", "The node's host name does not resolve."],
    ["fetch failed: bad port", "The node's URL names a port HTTP clients refuse to call: configure another."],
    ["The operation was aborted due to timeout", "The node does not answer in time."],
    ["getblockcount: the node refused our credentials (HTTP 401)", "The node refuses our credentials."],
    ["getblockcount: not a JSON-RPC answer (HTTP 502)", "The node answers with HTTP errors (502)."],
    ["HTTP request failed.: ECONNRESET", "The node does not accept connections."],
    ["HTTP request failed.", "The node answers with HTTP errors."],
    [
      'the node serves chain "test", but addresses are for "main"',
      "The node serves another chain than the one configured.",
    ],
    [
      "Invalid parameters were provided to the RPC method.: -32602",
      "The node refused a request; the service's log has the detail.",
    ],
  ])("puts %j in plain words", (error, words) => {
    expect(watcherProblem("unreachable", error, 30)).toBe(words);
  });

  it("never repeats an address or the raw error", () => {
    const raw = "HTTP request failed. URL: http://10.1.2.3:8545 Status: 500";
    const words = watcherProblem("unreachable", raw, 30) ?? "";
    expect(words).not.toMatch(/10\.1\.2\.3|8545|http:/);
  });

  it("names how long a stale watcher has not polled", () => {
    expect(watcherProblem("stale", null, 30)).toMatch(/over 30 seconds/);
  });
});
