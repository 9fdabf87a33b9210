"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { useHydrated } from "@/components/ui/use-hydrated";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { sessionsQuery } from "@/lib/dashboard/queries/sessions";
import type { Schemas } from "@/lib/dashboard/queries/types";

type Session = Schemas["DashboardSession"];

const minute = (timestamp: string) => `${timestamp.slice(0, 16).replace("T", " ")} UTC`;

/** The account's live dashboard sessions: any but this one can be revoked (this one signs out instead). */
export function SessionsPanel() {
  const hydrated = useHydrated();
  const queryClient = useQueryClient();
  const { data, error: loadError } = useQuery(sessionsQuery());
  const sessions = data?.sessions;
  const revoke = useMutation({
    mutationFn: (session: Session) => bffFetch(`/bff/sessions/${session.id}`, { method: "DELETE" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: sessionsQuery().queryKey }),
  });
  const failure = revoke.error ?? loadError;

  return (
    <div className="space-y-3">
      {failure && <Alert>{errorMessage(failure)}</Alert>}
      {sessions === undefined ? (
        !loadError && <p role="status">Loading sessions…</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm" aria-label="Dashboard sessions">
            <thead>
              <tr>
                <th className="py-2">Signed in</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((session) => (
                <tr key={session.id} className="border-t border-zinc-200 dark:border-zinc-800">
                  <td className="py-2">{minute(session.created_at)}</td>
                  <td>{session.last_used_at ? minute(session.last_used_at) : "never"}</td>
                  <td>{session.expires_at.slice(0, 10)}</td>
                  <td className="text-right">
                    {session.current ? (
                      <span className="rounded bg-emerald-100 px-2 py-0.5 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100">
                        This session
                      </span>
                    ) : (
                      <button
                        type="button"
                        className="underline disabled:opacity-60"
                        disabled={!hydrated || revoke.isPending}
                        onClick={() => revoke.mutate(session)}
                      >
                        Revoke{" "}
                        <span className="sr-only">the session signed in {minute(session.created_at)}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
