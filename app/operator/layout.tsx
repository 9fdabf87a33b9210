import type { Metadata } from "next";
import type { ReactNode } from "react";
import { OperatorNav } from "@/components/operator/operator-nav";
import { config } from "@/lib/config/env";
import { csrfTokenFor } from "@/lib/operator/credentials";
import { currentOperator } from "@/lib/operator/page-session";

export const metadata: Metadata = {
  title: { default: "Operator", template: "%s · Operator" },
  robots: "noindex",
};

/** The operator's console: its own navigation once signed in; every page checks the session itself. */
export default async function OperatorLayout({ children }: { children: ReactNode }) {
  const operator = await currentOperator();
  return (
    <div className="space-y-6">
      {operator && (
        <OperatorNav
          name={operator.name}
          role={operator.role}
          csrfToken={csrfTokenFor(config().operatorCsrfKey, operator.token)}
        />
      )}
      {children}
    </div>
  );
}
