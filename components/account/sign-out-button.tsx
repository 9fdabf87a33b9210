"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useHydrated } from "@/components/ui/use-hydrated";
import { bffFetch } from "@/lib/dashboard/queries/bff-fetch";

export function SignOutButton() {
  const hydrated = useHydrated();
  const router = useRouter();
  // Whatever the answer, the page leaves: the BFF clears the cookie even when the API could not be told.
  const signOut = useMutation({
    mutationFn: () => bffFetch("/bff/sign-out", { method: "POST" }),
    onSettled: () => {
      router.push("/signin");
      router.refresh();
    },
  });
  return (
    <button
      type="button"
      disabled={!hydrated || signOut.isPending || signOut.isSuccess}
      className="rounded border border-zinc-300 px-3 py-2 text-sm dark:border-zinc-700"
      onClick={() => signOut.mutate()}
    >
      Sign out
    </button>
  );
}
