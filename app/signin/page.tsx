import type { Metadata } from "next";
import { SignInForm } from "@/components/account/sign-in-form";

export const metadata: Metadata = { title: "Sign in" };

export default function SignInPage() {
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">Sign in</h1>
      <SignInForm />
      <p className="text-sm">
        No account yet?{" "}
        <a href="/signup" className="underline">
          Create one in one click
        </a>
        .
      </p>
    </section>
  );
}
