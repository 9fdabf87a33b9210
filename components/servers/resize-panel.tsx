"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { findPlan, PLANS } from "@/lib/catalog/catalog";
import { BffError, bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { type IntentRef, idempotencyKeyFor, settleIntent } from "@/lib/dashboard/queries/idempotency";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import { resizesQuery } from "@/lib/dashboard/queries/servers";
import type { Resize, ResizeQuote, Server } from "@/lib/dashboard/queries/types";
import { apiUsdToCents, formatApiUsd } from "@/lib/util/cents";
import { Alert, TEXT_STYLES } from "../ui/alert";
import { BUTTON_STYLES, Button } from "../ui/button";
import { Checkbox } from "../ui/checkbox";
import { INPUT_STYLE } from "../ui/field";
import { Panel } from "../ui/panel";
import { ShortfallTopupLink } from "./shortfall-topup-link";
import { formatUtc } from "./status-badge";

const planName = (id: string) => findPlan(id)?.name ?? id;
const per = (cycle: string) => (cycle === "annual" ? "year" : "month");

/** The latest resize in words: in progress, done with its measured downtime, or failed with why. */
function LatestResize({ resize }: { resize: Resize }) {
  const move = `${planName(resize.from_plan)} to ${planName(resize.to_plan)}`;
  const text =
    resize.state === "done"
      ? `Resized from ${move}${resize.downtime_seconds === null ? "" : `: down for ${resize.downtime_seconds} s`}.`
      : resize.state === "failed"
        ? `The resize from ${move} failed (${resize.failure_reason ?? "see above"}); the old size is back.`
        : resize.state === "reverting"
          ? `The resize from ${move} failed: the old size is being put back.`
          : `Resizing from ${move}: the machine restarts; this updates by itself.`;
  return (
    <p role="status" data-testid="resize-status" className="text-sm">
      {text}
    </p>
  );
}

/** What the quote says, line by line, before anything is confirmed. */
function QuoteTerms({ quote }: { quote: ResizeQuote }) {
  const days = Math.round(quote.seconds_left / 86_400);
  return (
    <ul data-testid="resize-quote" className="list-disc space-y-1 pl-5 text-sm">
      <li>
        {quote.direction === "upgrade"
          ? `Charged now: ${formatApiUsd(quote.charge_usd)} for the ${days} days left of this period.`
          : `Credited once it runs on the new size: ${formatApiUsd(quote.credit_usd)} for the ${days} days left.`}
      </li>
      <li>
        Each renewal then costs {formatApiUsd(quote.renewal_price_usd)} a {per(quote.cycle)}; paid until stays{" "}
        {formatUtc(quote.expires_at)}.
      </li>
      <li>
        {quote.vcpus} vCPU · {quote.memory_mb} MB RAM · {quote.disk_gb} GB disk. The machine is down for about{" "}
        {quote.downtime_estimate_seconds} s (it shuts down, takes the new size and starts again).
      </li>
      <li>
        {quote.downgrade_possible
          ? `A later downgrade stays possible (down to ${planName(quote.smallest_plan_after)}).`
          : quote.grow_disk
            ? `The disk grows to ${quote.disk_gb} GB for good: plans with less disk are closed to this server from then on.`
            : "No smaller plan can take this server's disk."}
      </li>
      <li className={TEXT_STYLES.muted}>This price holds until {formatUtc(quote.quote_expires_at)}.</li>
    </ul>
  );
}

/**
 * Resize: choose a plan (and whether the disk grows), see the quote, then confirm it; the price charged or
 * credited is the quote's. The latest resize's progress and measured downtime are shown above.
 */
export function ResizePanel({ server }: { server: Server }) {
  const queryClient = useQueryClient();
  const current = PLANS.findIndex((plan) => plan.id === server.plan);
  const [plan, setPlan] = useState(PLANS[current + 1]?.id ?? PLANS[current - 1]?.id ?? server.plan);
  const [growDisk, setGrowDisk] = useState(false);
  const intent: IntentRef = useRef(undefined);
  const history = useQuery(resizesQuery(server.id));
  const latest = history.data?.resizes[0];
  const moving = latest?.state === "pending" || latest?.state === "running" || latest?.state === "reverting";

  const quote = useMutation({
    mutationFn: (body: { plan: string; grow_disk: boolean }) =>
      bffFetch<ResizeQuote>(`/bff/servers/${server.id}/resize`, {
        method: "POST",
        body: { ...body, dry_run: true },
      }),
  });
  const resize = useMutation({
    mutationFn: (terms: ResizeQuote) => {
      const body = { plan: terms.to_plan, grow_disk: terms.grow_disk, quote_id: terms.quote_id };
      return bffFetch<Resize>(`/bff/servers/${server.id}/resize`, {
        method: "POST",
        body,
        headers: { "idempotency-key": idempotencyKeyFor(intent, body) },
      });
    },
    onSettled: (_data, error) => settleIntent(intent, error),
    onSuccess: () => {
      quote.reset();
      void queryClient.invalidateQueries({ queryKey: queryKeys.servers.one(server.id) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.account() });
    },
  });
  const choose = (change: () => void) => {
    change();
    quote.reset();
    resize.reset();
  };

  const failure = resize.error ?? quote.error;
  const refusal = failure instanceof BffError ? failure : undefined;
  const deficit =
    refusal?.code === "insufficient_balance" ? apiUsdToCents(Number(refusal.body.deficit ?? 0)) : 0;
  const offered = quote.data;

  return (
    <Panel id="resize" title="Resize">
      <p className="text-sm">
        Move to a larger or smaller plan, priced for the time left of the paid period, per second: an upgrade
        is charged now, a downgrade credited once done. CPU and memory change both ways; the disk keeps its
        size unless you grow it, which cannot be undone.
      </p>
      {latest && <LatestResize resize={latest} />}
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(event) => {
          event.preventDefault();
          quote.mutate({ plan, grow_disk: growDisk });
        }}
      >
        <label className="flex flex-col gap-1 text-sm">
          New plan
          <select
            value={plan}
            onChange={(event) => choose(() => setPlan(event.target.value))}
            className={INPUT_STYLE}
          >
            {PLANS.filter((candidate) => candidate.id !== server.plan).map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}: {candidate.vcpu} vCPU, {candidate.ramMb / 1024} GB RAM, {candidate.diskGb}{" "}
                GB disk
              </option>
            ))}
          </select>
        </label>
        <Checkbox checked={growDisk} onChange={(checked) => choose(() => setGrowDisk(checked))}>
          Grow the disk too (for good: no smaller plan afterwards)
        </Checkbox>
        <Button type="submit" disabled={quote.isPending || moving || server.status !== "active"}>
          {quote.isPending ? "Pricing…" : "Show the price"}
        </Button>
      </form>
      {offered && (
        <div className="space-y-2">
          <QuoteTerms quote={offered} />
          <button
            type="button"
            disabled={resize.isPending || moving}
            onClick={() => resize.mutate(offered)}
            className={BUTTON_STYLES.primary}
          >
            {resize.isPending
              ? "Resizing…"
              : offered.direction === "upgrade"
                ? `Resize to ${planName(offered.to_plan)} for ${formatApiUsd(offered.charge_usd)}`
                : `Resize to ${planName(offered.to_plan)} (credit ${formatApiUsd(offered.credit_usd)})`}
          </button>
        </div>
      )}
      {failure && (
        <Alert className="text-sm">
          {errorMessage(failure)}{" "}
          {deficit > 0 && <ShortfallTopupLink deficitCents={deficit} className="underline" />}
        </Alert>
      )}
    </Panel>
  );
}
