import { notFound } from "next/navigation";

/** Any other path under /dashboard: the dashboard's own not-found page, inside its layout. */
export default function MissingDashboardPage() {
  notFound();
}
