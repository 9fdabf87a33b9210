import type { Server } from "@/lib/dashboard/queries/types";

const STYLES: Record<Server["status"], string> = {
  provisioning: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  active: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100",
  suspended: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100",
  terminated: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
};

/** A server's status in words (never colour alone). */
export function StatusBadge({ status }: { status: Server["status"] }) {
  return (
    <span data-testid="server-status" className={`rounded px-2 py-0.5 text-sm font-medium ${STYLES[status]}`}>
      {status}
    </span>
  );
}

/** An API timestamp for people: date and minute, in UTC as the API keeps it. */
export const formatUtc = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "—");
