import Link from "next/link";
import { PlanTable } from "@/components/catalog/plan-table";
import { PriceCalculator } from "@/components/catalog/price-calculator";
import { COINS, LOCATIONS, OS_IMAGES, TOPUP_MAX_CENTS, TOPUP_MIN_CENTS } from "@/lib/catalog/catalog";
import { formatUsd } from "@/lib/money/cents";

export default function HomePage() {
  return (
    <div className="space-y-12">
      <section>
        <h1 className="text-4xl font-bold tracking-tight">KVM servers from a prepaid balance</h1>
        <p className="mt-3 max-w-2xl text-lg text-zinc-700 dark:text-zinc-300">
          No KYC: one call creates an account. Top up with crypto, order a server from the balance, and get
          its root credentials. Everything works over a plain REST API.
        </p>
        <pre className="mt-4 overflow-x-auto rounded-lg bg-zinc-900 p-4 font-mono text-sm text-zinc-100">
          <code>curl -X POST https://your-host/api/v1/account</code>
        </pre>
        <p className="mt-3 text-sm">
          <Link href="/docs/api" className="font-medium underline">
            Read the API reference
          </Link>
        </p>
      </section>

      <section aria-labelledby="plans">
        <h2 id="plans" className="text-2xl font-semibold">
          Plans
        </h2>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
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
