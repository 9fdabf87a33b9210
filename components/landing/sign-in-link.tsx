"use client";

import { usePathname } from "next/navigation";

/** "Sign in" in the header, except inside the dashboard, where the visitor already is signed in. */
export function SignInLink() {
  const pathname = usePathname();
  if (pathname.startsWith("/dashboard")) return null;
  return (
    <a href="/signin" className="hover:underline">
      Sign in
    </a>
  );
}
