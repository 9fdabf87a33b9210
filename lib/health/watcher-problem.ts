/**
 * What is wrong with a deposit watcher, in words an operator can act on and the public may read: no node
 * address, no raw error text. The raw error stays in the log (and the watcher's row) for the operator.
 */

export type WatcherStatus = "ok" | "unreachable" | "stale" | "starting" | "behind";

/** The failure kinds worth telling apart, first match wins; `lastError` is the watcher's last poll error. */
const KINDS: [RegExp, string | ((match: RegExpExecArray) => string)][] = [
  [/credentials|HTTP 40[13]\b|Status: 40[13]\b/i, "The node refuses our credentials."],
  [/ENOTFOUND|EAI_AGAIN/, "The node's host name does not resolve."],
  // Node's fetch refuses ports such as 9 or 25 before connecting.
  [/bad port/, "The node's URL names a port HTTP clients refuse to call: configure another."],
  [
    /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_SOCKET|socket hang up/,
    "The node does not accept connections.",
  ],
  [/timeout|timed out|ETIMEDOUT|aborted/i, "The node does not answer in time."],
  [
    /not a JSON-RPC answer \(HTTP (\d{3})\)/,
    (match) =>
      Number(match[1]) >= 400
        ? `The node answers with HTTP errors (${match[1]}).`
        : "The node's answers are not JSON-RPC: check that the URL is the node's RPC endpoint.",
  ],
  [/HTTP request failed|Status: \d{3}/, "The node answers with HTTP errors."],
  [/serves chain/, "The node serves another chain than the one configured."],
  [/not made from DEPOSIT_XMR/, "The wallet is not made from the configured Monero keys."],
];

/** Plain words for a watcher's state; null when nothing is wrong (or nothing is known yet). */
export function watcherProblem(
  status: WatcherStatus,
  lastError: string | null,
  staleAfterSeconds: number,
): string | null {
  if (status === "stale") {
    return `Its node has not been polled for over ${staleAfterSeconds} seconds: no app instance is running the background pass.`;
  }
  if (status !== "unreachable") return null;
  for (const [pattern, words] of KINDS) {
    const match = pattern.exec(lastError ?? "");
    if (match) return typeof words === "string" ? words : words(match);
  }
  return "The node refused a request; the service's log has the detail.";
}
