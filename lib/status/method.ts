/**
 * How each figure of the status page is measured, in the words the page and its JSON show next to it.
 * docs/status-page.md quotes them as the default settings render them (a unit test holds it to that). Pure.
 */

/** What the words depend on: the settings in force. */
export type MethodFacts = {
  /** How often the figures are computed (STATUS_REFRESH_SECONDS). */
  refreshSeconds: number;
  /** How often the background pass runs: it polls the watchers and reads the hosts (WATCHER_INTERVAL_MS). */
  passSeconds: number;
  /** How often a build's probe looks for the machine's SSH server. */
  sshProbeSeconds: number;
  /** How long a host's readings fail before it counts as down. */
  hostDownSeconds: number;
};

export type Methods = {
  overview: string;
  percentiles: string;
  orders: string;
  ssh: string;
  credits: string;
  console: string;
  webhooks: string;
  hosts: string;
  watchers: string;
};

const seconds = (value: number) => (value === 1 ? "1 second" : `${value} seconds`);

export function statusMethods(facts: MethodFacts): Methods {
  return {
    overview:
      "Every figure comes from what the service records as it does its work, from real orders, payments, " +
      "console sessions and webhooks only: there are no test orders and no probe of its own. The figures are " +
      `computed at most once every ${seconds(facts.refreshSeconds)} and cover the last 24 hours and the last 7 ` +
      "days. They name no customer, server or payment.",
    percentiles:
      "p50, p95 and p99 are nearest-rank percentiles: of n times in order, p95 is the one at position " +
      "0.95 x n, rounded up, so every figure is a time that was measured. With few measurements the high " +
      "percentiles are the slowest ones: n is shown beside them.",
    orders:
      "From the moment an order is accepted to the moment its server is recorded active, over the orders " +
      "whose build ended in the window, per location and image as ordered. A server becomes active once its " +
      "SSH server answers, so this includes the machine's first boot. Success rate: the orders that became " +
      "active, out of those whose build ended (active, or failed for good after its retries); an order " +
      "cancelled before its build ended counts neither way.",
    ssh:
      "From the accepted order to the first time the build's probe read the SSH server's greeting " +
      `("SSH-2.0-...") at the server's address. The probe looks every ${seconds(facts.sshProbeSeconds)}, so ` +
      "this can be that much late. Only real machines answer: simulated ones (the demo) leave it empty.",
    credits:
      "Per coin, from the time of the block that gave a payment the confirmations its top-up needs (the time " +
      "the chain gives that block, in whole seconds; in the demo, when its simulated block was made) to the " +
      "commit of its credit to the balance. It includes the time the block waits for our watcher to see it: " +
      "at once when the coin's node tells the service of new blocks, otherwise at the watcher's next look " +
      `(every ${seconds(facts.passSeconds)}). Not included: the wait for those confirmations. A block's time ` +
      "is set by whoever mined it and can be off by a little, so a figure is never below zero.",
    console:
      "From the issue of a console ticket to the first byte of the machine's console stream reaching the " +
      "service: on a real host, the hypervisor saying the console is connected, which it says whether or not " +
      "the machine prints anything. It includes the time the client takes to open the WebSocket. Success " +
      "rate: sessions that got that byte, out of those opened; a ticket never used, and a session whose " +
      "machine was stopped, count neither way.",
    webhooks:
      "From the commit of the change a webhook announces (the event is written in the same transaction) to " +
      "the receiver's answer to the attempt that delivered it, retries included. Success rate: deliveries " +
      "that succeeded, out of those delivered or failed for good, so a receiver that is down lowers it too. " +
      "A delivery made only by a redelivery asked by hand counts neither way.",
    hosts:
      "Each host is read by the background pass (every " +
      `${seconds(facts.passSeconds)}), which lists its virtual machines anyway: up when the last reading ` +
      "answered, degraded when readings have just started failing or none is recent, down when they have " +
      `failed for ${seconds(facts.hostDownSeconds)} or more. Hosts are counted per location and never named.`,
    watchers:
      "Each coin's deposit watcher, from its last poll of its node: up when the node answered and is current, " +
      "degraded while it starts, when it has not polled lately or when its node is behind its network (too " +
      "few peers, or no recent block: payments are credited once it has caught up), down when the node does " +
      "not answer (new top-ups in that coin wait until it is back).",
  };
}
