"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useTransition } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";
import { callOperatorApi } from "./use-operator-action";

const SECTIONS = [
  { href: "/operator", label: "Overview" },
  { href: "/operator/hosts", label: "Hosts" },
  { href: "/operator/payments", label: "Payments" },
  { href: "/operator/accounts", label: "Accounts" },
  { href: "/operator/audit", label: "Audit log", admin: true },
  { href: "/operator/operators", label: "Operators", admin: true },
];

/** The console's sections, who is signed in, and signing out. */
export function OperatorNav(props: { name: string; role: string; csrfToken: string }) {
  const pathname = usePathname();
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const hydrated = useHydrated();
  const current = (href: string) =>
    href === "/operator" ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
  function signOut() {
    startTransition(async () => {
      await callOperatorApi(props.csrfToken, "DELETE", "/session").catch(() => undefined);
      router.push("/operator");
      router.refresh();
    });
  }
  return (
    <nav
      aria-label="Operator"
      className="flex flex-wrap items-center gap-x-4 gap-y-2 border-b border-zinc-200 pb-3 text-sm dark:border-zinc-800"
    >
      {SECTIONS.filter((section) => !section.admin || props.role === "admin").map((section) => (
        <Link
          prefetch={false}
          key={section.href}
          href={section.href}
          aria-current={current(section.href) ? "page" : undefined}
          className={current(section.href) ? "font-semibold underline underline-offset-4" : "hover:underline"}
        >
          {section.label}
        </Link>
      ))}
      <span className="ml-auto flex items-center gap-3">
        <span data-testid="operator-identity">
          {props.name} · {props.role}
        </span>
        <button type="button" onClick={signOut} disabled={!hydrated || pending} className="underline">
          Sign out
        </button>
      </span>
    </nav>
  );
}
