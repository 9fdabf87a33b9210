"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** A server page's sections, each a page of its own (its own URL, its own code). */
export const SERVER_SECTIONS = [
  { path: "", label: "Overview" },
  { path: "/console", label: "Console" },
  { path: "/usage", label: "Usage" },
  { path: "/snapshots", label: "Snapshots & rescue" },
  { path: "/networking", label: "Networking" },
  { path: "/settings", label: "Settings" },
] as const;

/** The sections' links; the one shown is marked for screen readers as well as by sight. */
export function SectionNav({ serverId }: { serverId: number }) {
  const pathname = usePathname();
  const base = `/dashboard/servers/${serverId}`;
  return (
    <nav
      aria-label="Server sections"
      className="flex flex-wrap gap-x-4 gap-y-2 border-b border-zinc-200 pb-2 text-sm dark:border-zinc-800"
    >
      {SERVER_SECTIONS.map((section) => {
        const href = `${base}${section.path}`;
        const current = pathname === href;
        return (
          <Link
            key={section.path}
            href={href}
            // Fetched when tapped, like the dashboard's own sections.
            prefetch={false}
            aria-current={current ? "page" : undefined}
            className={
              current
                ? "font-semibold underline underline-offset-4"
                : "text-zinc-700 hover:underline dark:text-zinc-300"
            }
          >
            {section.label}
          </Link>
        );
      })}
    </nav>
  );
}
