import Link from "next/link";

/** Inside the dashboard a missing page keeps the dashboard's navigation around it. */
export default function DashboardNotFound() {
  return (
    <section>
      <h1 className="text-2xl font-bold">Page not found</h1>
      <p className="mt-2">
        It may belong to another account, or it was never here.{" "}
        <Link prefetch={false} href="/dashboard" className="underline">
          Back to the overview
        </Link>
      </p>
    </section>
  );
}
