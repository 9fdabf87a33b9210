import { SignInForm } from "@/components/account/sign-in-form";
import { SignUpForm } from "@/components/account/sign-up-form";
import { PlanTable } from "@/components/catalog/plan-table";
import { PriceCalculator } from "@/components/catalog/price-calculator";
import { ApiCurl } from "@/components/landing/api-curl";
import { TEXT_STYLES } from "@/components/ui/alert";
import { LOCATIONS, OS_IMAGES } from "@/lib/catalog/catalog";
import { TOPUP_MAX_CENTS, TOPUP_MIN_CENTS } from "@/lib/catalog/topup-limits";
import { COINS } from "@/lib/rails/registry";
import { formatUsd } from "@/lib/util/cents";

export default function HomePage() {
  return (
    <div className="space-y-12">
      <section className="grid gap-8 lg:grid-cols-[3fr_2fr]">
        <div>
          <h1 className="text-4xl font-bold tracking-tight">KVM servers from a prepaid balance</h1>
          <p className="mt-3 max-w-2xl text-lg text-zinc-700 dark:text-zinc-300">
            No KYC: one click creates an account. Top up with crypto, order a server from the balance, and get
            its root credentials. Everything also works over a plain REST API:
          </p>
          <div className="mt-4">
            <ApiCurl />
          </div>
          <p className="mt-3 text-sm">
            <a href="/docs/api" className="font-medium underline">
              Read the API reference
            </a>
          </p>
        </div>
        <div className="space-y-6">
          <section
            aria-labelledby="create-account"
            className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
          >
            <h2 id="create-account" className="text-xl font-semibold">
              Create an account
            </h2>
            <div className="mt-3">
              <SignUpForm />
            </div>
          </section>
          <section
            aria-labelledby="sign-in"
            className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
          >
            <h2 id="sign-in" className="text-xl font-semibold">
              Sign in
            </h2>
            <div className="mt-3">
              <SignInForm />
            </div>
          </section>
        </div>
      </section>

      <section aria-labelledby="plans">
        <h2 id="plans" className="text-2xl font-semibold">
          Plans
        </h2>
        <p className={`mt-1 text-sm ${TEXT_STYLES.muted}`}>
          Monthly price = plan base price x location modifier. Paying annually costs 10 months: two are free.
        </p>
        <div className="mt-4">
          <PlanTable />
        </div>
      </section>

      <section aria-labelledby="calculator">
        <h2 id="calculator" className="text-2xl font-semibold">
          Price calculator
        </h2>
        <div className="mt-4">
          <PriceCalculator />
        </div>
      </section>

      <section aria-labelledby="locations" className="grid gap-8 md:grid-cols-3">
        <div>
          <h2 id="locations" className="text-xl font-semibold">
            Locations
          </h2>
          <ul className="mt-2 space-y-1 text-sm">
            {LOCATIONS.map((l) => (
              <li key={l.id}>
                {l.city}, {l.country}{" "}
                <span className="text-zinc-500">x{(l.modifierBp / 10000).toFixed(2)}</span>
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h2 className="text-xl font-semibold">Operating systems</h2>
          <ul className="mt-2 space-y-1 text-sm">
            {OS_IMAGES.map((os) => (
              <li key={os.id}>{os.name}</li>
            ))}
          </ul>
        </div>
        <div>
          <h2 className="text-xl font-semibold">Payment</h2>
          <p className="mt-2 text-sm">
            Top-ups from {formatUsd(TOPUP_MIN_CENTS)} to {formatUsd(TOPUP_MAX_CENTS)}, on-chain and
            non-refundable.
          </p>
          <ul className="mt-2 space-y-1 text-sm">
            {COINS.map((coin) => (
              <li key={coin.code}>{coin.name}</li>
            ))}
          </ul>
        </div>
      </section>
    </div>
  );
}
