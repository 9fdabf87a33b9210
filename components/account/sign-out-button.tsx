"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

export function SignOutButton() {
  const router = useRouter();
  const [working, setWorking] = useState(false);
  return (
    <button
      type="button"
      disabled={working}
      className="rounded border border-zinc-300 px-3 py-2 text-sm dark:border-zinc-700"
      onClick={async () => {
        setWorking(true);
        await fetch("/bff/sign-out", { method: "POST" });
        router.push("/signin");
        router.refresh();
      }}
    >
      Sign out
    </button>
  );
}
