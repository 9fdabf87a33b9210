import type { Metadata } from "next";
import { SignUpForm } from "@/components/account/sign-up-form";

export const metadata: Metadata = { title: "Create an account" };

export default function SignUpPage() {
  return (
    <section className="max-w-2xl space-y-6">
      <h1 className="text-2xl font-semibold">Create an account</h1>
      <SignUpForm />
      <p className="text-sm">
        Already have one?{" "}
        <a href="/signin" className="underline">
          Sign in with your login token
        </a>
        .
      </p>
    </section>
  );
}
