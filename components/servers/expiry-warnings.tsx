"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { expiryWarningsQuery } from "@/lib/dashboard/queries/notifications";
import { TEXT_STYLES } from "../ui/alert";
import { formatUtc } from "./status-badge";

/** 72 -> "3 days", 24 -> "1 day", 12 -> "12 hours". */
const lead = (hours: number) =>
  hours % 24 === 0 ? `${hours / 24} day${hours === 24 ? "" : "s"}` : `${hours} hour${hours === 1 ? "" : "s"}`;

/**
 * When the owner is warned before this server expires (`server.expiring`): the times, whether each went out,
 * and through how many endpoints; or that no endpoint takes the warning, with the way to add one.
 */
export function ExpiryWarnings({ serverId }: { serverId: number }) {
  const { data } = useQuery(expiryWarningsQuery(serverId));
  if (!data) return null;
  if (data.channels === 0) {
    return (
      <p data-testid="expiry-warnings" className={`text-sm ${TEXT_STYLES.muted}`}>
        No warning before expiry: no webhook or push topic takes <code>server.expiring</code>.{" "}
        <Link prefetch={false} href="/dashboard/notifications" className="underline">
          Add one
        </Link>
        .
      </p>
    );
  }
  const channels = `${data.channels} endpoint${data.channels === 1 ? "" : "s"}`;
  const times = data.warnings.map(
    (warning) =>
      `${lead(warning.lead_hours)} before (${formatUtc(warning.at)}${warning.sent_at ? `, sent ${formatUtc(warning.sent_at)}` : ""})`,
  );
  return (
    <p data-testid="expiry-warnings" className="text-sm">
      {data.renews_itself
        ? `It renews itself from the balance. Should the balance fall short, you are warned ${times.join(" and ")} through ${channels}.`
        : `Warned ${times.join(" and ")} through ${channels}, unless it is renewed first.`}
    </p>
  );
}
