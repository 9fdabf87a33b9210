"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import type { SnapshotSchedule } from "@/lib/dashboard/queries/types";
import { Alert, TEXT_STYLES } from "../ui/alert";
import { Button } from "../ui/button";
import { formatUtc } from "./status-badge";

const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
type Weekday = (typeof WEEKDAYS)[number];
const capitalized = (word: string) => `${word[0]?.toUpperCase()}${word.slice(1)}`;
const hourText = (hour: number) => `${String(hour).padStart(2, "0")}:00 UTC`;
/** The hours of a day, 0 to 23. */
const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
const SELECT = "rounded border border-zinc-300 px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900";

/** The schedule in words: "Daily at 03:00 UTC" or "Every Sunday at 04:00 UTC", with its next run. */
function scheduleText(schedule: SnapshotSchedule) {
  const when =
    schedule.frequency === "daily"
      ? `Daily at ${hourText(schedule.hour)}`
      : `Every ${capitalized(schedule.weekday ?? "")} at ${hourText(schedule.hour)}`;
  return `${when}; next ${formatUtc(schedule.next_run_at)}.`;
}

/**
 * Automatic snapshots: off, daily or weekly at an hour (UTC). Each run takes one; when the server keeps as many
 * as it may, the oldest automatic one goes to make room (never one taken by hand).
 */
export default function SnapshotScheduleForm({
  serverId,
  schedule,
}: {
  serverId: number;
  schedule: SnapshotSchedule | null;
}) {
  const queryClient = useQueryClient();
  const ids = useId();
  const [frequency, setFrequency] = useState<"off" | "daily" | "weekly">(schedule?.frequency ?? "off");
  const [hour, setHour] = useState(schedule?.hour ?? 3);
  const [weekday, setWeekday] = useState<Weekday>((schedule?.weekday as Weekday | null) ?? "sunday");
  const save = useMutation({
    mutationFn: () =>
      frequency === "off"
        ? bffFetch(`/bff/servers/${serverId}/snapshots/schedule`, { method: "DELETE" })
        : bffFetch(`/bff/servers/${serverId}/snapshots/schedule`, {
            method: "PUT",
            body: { frequency, hour, ...(frequency === "weekly" ? { weekday } : {}) },
          }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.servers.snapshots(serverId) }),
  });
  return (
    <form
      aria-labelledby={`${ids}-heading`}
      className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <h3 id={`${ids}-heading`} className="font-medium">
        Automatic snapshots
      </h3>
      <p className={`text-sm ${TEXT_STYLES.muted}`} data-testid="snapshot-schedule">
        {schedule ? scheduleText(schedule) : "Off."} When the server keeps as many snapshots as it may, the
        oldest automatic one is deleted to make room; snapshots you take are never deleted.
      </p>
      <div className="flex flex-wrap items-end gap-2 text-sm">
        <label className="flex flex-col gap-1">
          Take one
          <select
            value={frequency}
            onChange={(event) => setFrequency(event.target.value as typeof frequency)}
            className={SELECT}
          >
            <option value="off">Never (off)</option>
            <option value="daily">Every day</option>
            <option value="weekly">Every week</option>
          </select>
        </label>
        {frequency === "weekly" && (
          <label className="flex flex-col gap-1">
            On
            <select
              value={weekday}
              onChange={(event) => setWeekday(event.target.value as Weekday)}
              className={SELECT}
            >
              {WEEKDAYS.map((day) => (
                <option key={day} value={day}>
                  {capitalized(day)}
                </option>
              ))}
            </select>
          </label>
        )}
        {frequency !== "off" && (
          <label className="flex flex-col gap-1">
            At (UTC)
            <select value={hour} onChange={(event) => setHour(Number(event.target.value))} className={SELECT}>
              {HOURS.map((h) => (
                <option key={h} value={h}>
                  {hourText(h)}
                </option>
              ))}
            </select>
          </label>
        )}
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save schedule"}
        </Button>
      </div>
      {save.error && <Alert className="text-sm">{errorMessage(save.error)}</Alert>}
    </form>
  );
}
