"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** "Sign in" in the header, except inside the dashboard, where the visitor already is signed in. */
export function SignInLink() {
  const pathname = usePathname();
  if (pathname.startsWith("/dashboard")) return null;
  return (
    <Link href="/signin" className="hover:underline">
      Sign in
    </Link>
  );
}
