"use client";

import Link, { useLinkStatus } from "next/link";
import { usePathname } from "next/navigation";
import { SignOutButton } from "@/components/account/sign-out-button";

const SECTIONS = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/servers", label: "Servers" },
  { href: "/dashboard/order", label: "Order" },
  { href: "/dashboard/topups", label: "Top up" },
  { href: "/dashboard/notifications", label: "Notifications" },
  { href: "/dashboard/keys", label: "API keys" },
  { href: "/dashboard/security", label: "Security" },
];

/** The dashboard's sections; the current one is marked for screen readers as well as by sight. */
export function DashboardNav() {
  const pathname = usePathname();
  const current = (href: string) =>
    href === "/dashboard" ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
  return (
    <nav
      aria-label="Dashboard"
      className="flex flex-wrap items-center gap-x-4 gap-y-2 border-b border-zinc-200 pb-3 text-sm dark:border-zinc-800"
    >
      {SECTIONS.map((section) => (
        <Link
          key={section.href}
          href={section.href}
          // Fetched when tapped, not every section as each page loads (a dozen server renders per view).
          prefetch={false}
          aria-current={current(section.href) ? "page" : undefined}
          className={
            current(section.href)
              ? "font-semibold underline underline-offset-4"
              : "text-zinc-700 hover:underline dark:text-zinc-300"
          }
        >
          {section.label}
          <PendingMark />
        </Link>
      ))}
      <span className="ml-auto">
        <SignOutButton />
      </span>
    </nav>
  );
}

/**
 * While a section is loading after a click, a small mark beside its name (the old page stays until the new one
 * is ready; the pages render on the server in one pass, so nothing half-loaded is ever shown).
 */
function PendingMark() {
  const { pending } = useLinkStatus();
  return pending ? (
    <span role="status" className="ml-1 inline-block animate-pulse" aria-label="loading">
      …
    </span>
  ) : null;
}
