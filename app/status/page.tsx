import type { Metadata } from "next";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { durationOrDash, formatRate } from "@/components/status/format";
import { StatusChart } from "@/components/status/status-chart";
import { TEXT_STYLES } from "@/components/ui/alert";
import type { Status, StatusOutcomes, StatusState, StatusTiming } from "@/lib/api/schemas/status";
import { statusSettings } from "@/lib/status/config";
import { currentStatus } from "@/lib/status/document";

export const metadata: Metadata = { title: "Status" };

const STATE_WORDS: Record<StatusState, { overall: string; word: string; style: string }> = {
  up: { overall: "Everything is up", word: "up", style: "text-emerald-700 dark:text-emerald-400" },
  degraded: {
    overall: "Some parts are degraded",
    word: "degraded",
    style: "text-amber-700 dark:text-amber-400",
  },
  down: { overall: "The service is down", word: "down", style: "text-red-700 dark:text-red-400" },
};

const WINDOWS = [
  ["last_24h", "24 hours"],
  ["last_7d", "7 days"],
] as const;

function StateWord({ state }: { state: StatusState }) {
  return <span className={`font-semibold ${STATE_WORDS[state].style}`}>{STATE_WORDS[state].word}</span>;
}

/** How a figure is measured, beside it. */
function Method({ children }: { children: ReactNode }) {
  return <p className={`max-w-3xl text-sm ${TEXT_STYLES.muted}`}>{children}</p>;
}

function Section(props: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={`${props.id}-heading`} className="space-y-3" data-testid={`status-${props.id}`}>
      <h2 id={`${props.id}-heading`} className="text-xl font-semibold">
        {props.title}
      </h2>
      {props.children}
    </section>
  );
}

const CELL = "border-b border-zinc-200 px-2 py-1 text-left dark:border-zinc-800";

function Table(props: { caption: string; head: string[]; rows: ReactNode[][] }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm tabular-nums">
        <caption className="sr-only">{props.caption}</caption>
        <thead>
          <tr>
            {props.head.map((name) => (
              <th key={name} scope="col" className={`${CELL} font-medium`}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((cells, row) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the rows are fixed for the life of the page
            <tr key={row}>
              {cells.map((cell, column) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed
                <td key={column} className={CELL}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** p50, p95, p99 and n of one timing, as table cells. */
const timingCells = (timing: StatusTiming) => [
  durationOrDash(timing.p50_ms),
  durationOrDash(timing.p95_ms),
  durationOrDash(timing.p99_ms),
  timing.n,
];
const outcomeCells = (outcomes: StatusOutcomes) => [outcomes.total, formatRate(outcomes.success_rate)];
const TIMING_HEAD = ["p50", "p95", "p99", "n"];

function Orders({ status }: { status: Status }) {
  if (status.orders.length === 0) return <p>No order&apos;s build ended in the last 7 days.</p>;
  return (
    <Table
      caption="Order to active and to SSH answering, per location and image"
      head={[
        "Location",
        "Image",
        "Window",
        "Orders",
        "Success",
        "To active p50",
        "p95",
        "p99",
        "To SSH p50",
        "p95",
        "p99",
        "n (SSH)",
      ]}
      rows={status.orders.flatMap((entry) =>
        WINDOWS.map(([window, label]) => {
          const figures = entry.windows[window];
          return [
            entry.location_name,
            entry.os_name,
            label,
            ...outcomeCells(figures.orders),
            ...timingCells(figures.to_active).slice(0, 3),
            ...timingCells(figures.to_ssh),
          ];
        }),
      )}
    />
  );
}

function Credits({ status }: { status: Status }) {
  if (status.credits.length === 0) return <p>No deposit was credited in the last 7 days.</p>;
  return (
    <Table
      caption="Confirming block to credit, per coin"
      head={["Coin", "Window", ...TIMING_HEAD]}
      rows={status.credits.flatMap((entry) =>
        WINDOWS.map(([window, label]) => [entry.coin_name, label, ...timingCells(entry.windows[window])]),
      )}
    />
  );
}

/** A measure over both windows with its outcomes (consoles, webhooks). */
function Windows<W>(props: {
  caption: string;
  what: string;
  windows: Record<(typeof WINDOWS)[number][0], W>;
  outcomes: (figures: W) => StatusOutcomes;
  timing: (figures: W) => StatusTiming;
}) {
  return (
    <Table
      caption={props.caption}
      head={["Window", props.what, "Success", ...TIMING_HEAD]}
      rows={WINDOWS.map(([window, label]) => {
        const figures = props.windows[window];
        return [label, ...outcomeCells(props.outcomes(figures)), ...timingCells(props.timing(figures))];
      })}
    />
  );
}

/** The public status page: signed out, no account data, the figures the services record and how. */
export default async function StatusPage() {
  if (!statusSettings().enabled) notFound();
  const { body: status } = await currentStatus();
  const { methods, series } = status;
  const chart = (
    id: string,
    title: string,
    figures: { p50_ms: (number | null)[]; p95_ms: (number | null)[] },
  ) => (
    <StatusChart
      id={id}
      title={title}
      hourStarts={series.hour_starts}
      p50={figures.p50_ms}
      p95={figures.p95_ms}
    />
  );
  return (
    <article className="max-w-5xl space-y-10">
      <header className="space-y-2">
        <h1 className="text-3xl font-bold">Status</h1>
        <p className="text-lg" data-testid="status-overall">
          <span className={`font-semibold ${STATE_WORDS[status.state].style}`}>
            {STATE_WORDS[status.state].overall}
          </span>
          <span className={`ml-2 text-sm ${TEXT_STYLES.muted}`}>
            as of {status.generated_at.replace("T", " ").slice(0, 16)} UTC
          </span>
        </p>
        {status.mode === "demo" && (
          <p className="text-sm" data-testid="status-demo">
            Demo: payments are simulated
            {status.provisioner === "simulated" ? ", and so are the machines: no host builds them." : "."}
          </p>
        )}
        <Method>{methods.overview}</Method>
      </header>

      <Section id="parts" title="Hosts and deposits">
        <ul className="space-y-1">
          {status.hosts.length === 0 ? (
            <li>Servers are built by the simulated provisioner: there is no host to report.</li>
          ) : (
            status.hosts.map((location) => (
              <li key={location.location}>
                Hosts in {location.location_name}: {location.up} of {location.total} up
                {location.degraded > 0 && `, ${location.degraded} degraded`}
                {location.down > 0 && `, ${location.down} down`} (<StateWord state={location.state} />)
              </li>
            ))
          )}
          {status.watchers.map((watcher) => (
            <li key={watcher.coins.join(" ")}>
              {watcher.coins.join(", ")} deposits{watcher.simulated && " (simulated)"}:{" "}
              <StateWord state={watcher.state} />
            </li>
          ))}
        </ul>
        <Method>{methods.hosts}</Method>
        <Method>{methods.watchers}</Method>
      </Section>

      <Section id="orders" title="From order to a running server">
        <Orders status={status} />
        <Method>To active: {methods.orders}</Method>
        <Method>To SSH: {methods.ssh}</Method>
        {chart("to-active", "Order to active, hourly", series.to_active)}
      </Section>

      <Section id="credits" title="From a deposit's confirming block to its credit">
        <Credits status={status} />
        <Method>{methods.credits}</Method>
        {chart("to-credit", "Block to credit, every coin, hourly", series.to_credit)}
      </Section>

      <Section id="console" title="From a console ticket to its first byte">
        <Windows
          caption="Console ticket to first byte"
          what="Sessions"
          windows={status.console}
          outcomes={(figures) => figures.sessions}
          timing={(figures) => figures.to_first_byte}
        />
        <Method>{methods.console}</Method>
        {chart("to-first-byte", "Ticket to first byte, hourly", series.to_first_byte)}
      </Section>

      <Section id="webhooks" title="From a webhook's event to its delivery">
        <Windows
          caption="Webhook commit to delivery"
          what="Deliveries"
          windows={status.webhooks}
          outcomes={(figures) => figures.deliveries}
          timing={(figures) => figures.to_delivery}
        />
        <Method>{methods.webhooks}</Method>
        {chart("to-delivery", "Commit to delivery, hourly", series.to_delivery)}
      </Section>

      <Section id="reading" title="Reading the figures">
        <Method>{methods.percentiles}</Method>
        <p className="text-sm">
          The same figures as JSON:{" "}
          <a className="underline" href="/api/v1/status">
            /api/v1/status
          </a>{" "}
          (see the{" "}
          <a className="underline" href="/docs/api/service#getStatus">
            API reference
          </a>
          ).
        </p>
      </Section>
    </article>
  );
}
