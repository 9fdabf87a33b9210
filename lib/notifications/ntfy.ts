/**
 * An event as an ntfy push: a title, a message of a line or two, tags (ntfy shows them as emoji or words) and a
 * priority. Pure. ntfy reads these from the `Title`, `Tags` and `Priority` headers of a plain POST whose body
 * is the message; header values must be ASCII, so titles keep to it.
 */
type Push = { title: string; message: string; tags: string[]; priority: 1 | 2 | 3 | 4 | 5 };

type Data = Record<string, unknown> & {
  server?: { hostname?: string; id?: number; ip?: string | null; status?: string };
  topup?: { ref?: string; amount_usd?: number; coin?: string };
};

const money = (value: unknown) => `$${Number(value ?? 0).toFixed(2)}`;
const day = (value: unknown) =>
  typeof value === "string" ? `${value.slice(0, 16).replace("T", " ")} UTC` : "";
/** Header-safe: printable ASCII only. */
const ascii = (text: string) => text.replace(/[^\x20-\x7e]/g, "?").slice(0, 200);

export function pushFor(type: string, data: Data): Push {
  const name = data.server?.hostname ?? `server ${data.server?.id ?? ""}`;
  switch (type) {
    case "topup.payment_seen":
      return {
        title: "Payment seen",
        message: `A payment to top-up ${data.topup?.ref} was seen; it is credited once confirmed.`,
        tags: ["moneybag"],
        priority: 3,
      };
    case "topup.credited":
      return {
        title: `Balance credited ${money(data.credited_usd)}`,
        message: `Top-up ${data.topup?.ref} (${data.kind}): balance now ${money(data.balance_usd)}.`,
        tags: ["moneybag"],
        priority: 3,
      };
    case "server.active":
      return {
        title: ascii(`${name} is ready`),
        message: `${name} is active (${data.reason})${data.server?.ip ? ` at ${data.server.ip}` : ""}.`,
        tags: ["white_check_mark"],
        priority: 3,
      };
    case "server.build_failed":
      return {
        title: ascii(`${name} could not be built`),
        message: `${data.reason} ${money(data.refunded_usd)} was refunded.`,
        tags: ["x"],
        priority: 4,
      };
    case "server.expiring":
      return {
        title: ascii(`${name} expires in ${data.lead_hours} hours`),
        message: `It will not renew by itself (${data.why === "balance_short" ? "the balance is short" : "automatic renewal is off"}): renew it before ${day(data.expires_at)} or it is stopped.`,
        tags: ["warning"],
        priority: 4,
      };
    case "server.suspended":
      return {
        title: ascii(`${name} was suspended`),
        message: `Its period ended unpaid and it was stopped. Renew it before ${day(data.terminates_at)} or it is terminated.`,
        tags: ["warning"],
        priority: 5,
      };
    case "server.held":
      return {
        title: ascii(`${name} was suspended by the operator`),
        message:
          `${data.reason} It was stopped; ${data.period_paused ? "its paid period waits until the suspension is lifted" : "its paid period runs on"}. ` +
          "You may still renew it and top up; it cannot be started, terminated or have its snapshots deleted until then.",
        tags: ["warning"],
        priority: 5,
      };
    case "server.released":
      return {
        title: ascii(`${name}: the operator lifted its suspension`),
        message:
          data.status_after === "active"
            ? "It is active again."
            : data.status_after === "suspended"
              ? "Its period lapsed meanwhile: renew it to start it again."
              : "It ended meanwhile.",
        tags: ["white_check_mark"],
        priority: 4,
      };
    case "server.terminated":
      return {
        title: ascii(`${name} was terminated`),
        message:
          data.reason === "lapsed" && data.disk_kept_until
            ? `Its period lapsed. Its disk is kept until ${day(data.disk_kept_until)}: renew before then to bring it back.`
            : "It was terminated on request.",
        tags: ["no_entry"],
        priority: 4,
      };
    case "account.balance_low":
      return {
        title: `Balance too low for renewals: ${money(data.shortfall_usd)} short`,
        message: `Renewals in the next ${data.window_days} days cost ${money(data.needed_usd)}; the balance is ${money(data.balance_usd)}.`,
        tags: ["warning"],
        priority: 4,
      };
    case "snapshot.taken":
      return {
        title: ascii(`Snapshot of ${name} taken`),
        message: "The snapshot is ready.",
        tags: ["camera"],
        priority: 2,
      };
    case "snapshot.restored":
      return {
        title: ascii(`${name} restored`),
        message: "It runs on the snapshot's disk.",
        tags: ["rewind"],
        priority: 3,
      };
    case "snapshot.failed":
      return {
        title: ascii(`${data.operation === "restore" ? "Restore" : "Snapshot"} of ${name} failed`),
        message: String(data.reason ?? ""),
        tags: ["x"],
        priority: 4,
      };
    case "rescue.entered":
      return {
        title: ascii(`${name} is in rescue mode`),
        message: "The rescue system runs.",
        tags: ["sos"],
        priority: 3,
      };
    case "rescue.left":
      return {
        title: ascii(`${name} left rescue mode`),
        // A hold or a lapse ends rescue mode with the machine stopped: its own system boots at its next start.
        message:
          data.server?.status === "active"
            ? "Its own system runs again."
            : "It is stopped; its own system boots when it starts again.",
        tags: ["sos"],
        priority: 3,
      };
    case "console.opened":
      return {
        title: ascii(`Console of ${name} opened`),
        message: `From ${data.opened_from}.`,
        tags: ["computer"],
        priority: 3,
      };
    case "traffic.threshold_reached":
      return {
        title: ascii(`${name} used ${data.percent} % of its traffic`),
        message:
          data.percent === 100
            ? `Its network is slowed to ${data.slowed_to_mbps} Mbit/s until ${day(data.period_end)}.`
            : `Past 100 % its network is slowed until ${day(data.period_end)}.`,
        tags: ["chart_with_upwards_trend"],
        priority: 3,
      };
    default:
      return {
        title: "Test notification",
        message: String(data.message ?? "A test."),
        tags: ["bell"],
        priority: 3,
      };
  }
}
