import type { ReactNode } from "react";
import { DashboardNav } from "@/components/dashboard/dashboard-nav";
import { QueryProvider } from "@/components/providers/query-provider";

/** Every signed-in page: the section navigation and one shared query cache. Each page checks the session. */
export default function DashboardLayout({ children }: { children: ReactNode }) {
  return (
    <QueryProvider>
      <div className="space-y-6">
        <DashboardNav />
        {children}
      </div>
    </QueryProvider>
  );
}
