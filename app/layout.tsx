import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { SignInLink } from "@/components/landing/sign-in-link";
import { statusSettings } from "@/lib/status/config";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Prepaid VPS", template: "%s · Prepaid VPS" },
  description: "KVM servers paid from a prepaid balance. Crypto top-ups, no KYC, a complete REST API.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

// Every page is rendered per request so its scripts carry that response's CSP nonce (see proxy.ts).
export const dynamic = "force-dynamic";

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2">
          Skip to content
        </a>
        {/* Plain links here and on the public pages: next/link's 3 kB of script would be the landing's
            largest own cost, and a move between the site and the dashboard is a full page anyway. */}
        <header className="border-b border-zinc-200 dark:border-zinc-800">
          <nav aria-label="Main" className="mx-auto flex max-w-6xl items-center gap-6 px-4 py-3 text-sm">
            <a href="/" className="font-semibold">
              Prepaid VPS
            </a>
            <a href="/docs/api" className="hover:underline">
              API reference
            </a>
            <span className="ml-auto flex items-center gap-6">
              <SignInLink />
              <a href="/dashboard" className="hover:underline">
                Dashboard
              </a>
            </span>
          </nav>
        </header>
        <main id="main" className="mx-auto max-w-6xl px-4 py-8">
          {children}
        </main>
        <footer className="border-t border-zinc-200 dark:border-zinc-800">
          <nav aria-label="Footer" className="mx-auto flex max-w-6xl gap-6 px-4 py-4 text-sm">
            {statusSettings().enabled && (
              <a href="/status" className="hover:underline">
                Status
              </a>
            )}
            <a href="/docs/api" className="hover:underline">
              API reference
            </a>
          </nav>
        </footer>
      </body>
    </html>
  );
}
