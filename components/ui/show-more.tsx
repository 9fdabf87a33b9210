"use client";

import { errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { Alert } from "./alert";
import { useHydrated } from "./use-hydrated";

type PagedList = {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  isFetchNextPageError: boolean;
  error: unknown;
  fetchNextPage: () => unknown;
};

/** The button under a paged list: loads the next (older) page while there is one, and says when that failed. */
export function ShowMore({ list, what }: { list: PagedList; what: string }) {
  const hydrated = useHydrated();
  if (!list.hasNextPage) return null;
  return (
    <div className="flex flex-wrap items-center gap-3">
      <button
        type="button"
        onClick={() => list.fetchNextPage()}
        disabled={!hydrated || list.isFetchingNextPage}
        className="rounded border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:opacity-60 dark:border-zinc-700 dark:hover:bg-zinc-800"
      >
        {list.isFetchingNextPage ? "Loading…" : `Show older ${what}`}
      </button>
      {list.isFetchNextPageError && (
        <Alert as="span" className="text-sm">
          {errorMessage(list.error)}
        </Alert>
      )}
    </div>
  );
}
