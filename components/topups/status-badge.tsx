import type { Topup } from "@/lib/dashboard/queries/types";

const STYLES: Record<Topup["status"], string> = {
  pending: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-100",
  completed: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100",
  expired: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
  cancelled: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
};

export function StatusBadge({ status }: { status: Topup["status"] }) {
  return <span className={`rounded px-2 py-0.5 text-xs font-medium ${STYLES[status]}`}>{status}</span>;
}
