"use client";

/** A dashboard page whose data could not be read: say so plainly and offer to try again. */
export default function DashboardError({ reset }: { error: Error; reset: () => void }) {
  return (
    <div role="alert" className="space-y-3 rounded border border-red-300 p-4 dark:border-red-800">
      <h1 className="text-lg font-semibold">This page could not be loaded</h1>
      <p>The service did not answer as expected. Your balance and servers are unaffected.</p>
      <button
        type="button"
        onClick={reset}
        className="rounded border border-zinc-300 px-3 py-2 dark:border-zinc-700"
      >
        Try again
      </button>
    </div>
  );
}
