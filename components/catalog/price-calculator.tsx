"use client";

import { useId, useState } from "react";
import { TEXT_STYLES } from "@/components/ui/alert";
import { annualSavingCents, type Cycle, LOCATIONS, PLANS, priceFor } from "@/lib/catalog/catalog";
import { formatUsd } from "@/lib/util/cents";
import { LocationSelect } from "./location-select";

/** Plan x location x cycle, priced by the catalog's own `priceFor`: the same function the API charges with. */
export function PriceCalculator() {
  const [planId, setPlanId] = useState(PLANS[0]?.id ?? "");
  const [locationId, setLocationId] = useState(LOCATIONS[0]?.id ?? "");
  const [cycle, setCycle] = useState<Cycle>("monthly");
  const ids = useId();
  const plan = PLANS.find((p) => p.id === planId);
  const location = LOCATIONS.find((l) => l.id === locationId);
  if (!plan || !location) return null;
  const price = priceFor(plan, location, cycle);
  const saving = annualSavingCents(plan, location);
  const select =
    "mt-1 block w-full rounded border border-zinc-300 px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900";
  return (
    <form
      className="grid gap-4 sm:grid-cols-4"
      aria-label="Price calculator"
      onSubmit={(e) => e.preventDefault()}
    >
      <label htmlFor={`${ids}-plan`} className="text-sm font-medium">
        Plan
        <select
          id={`${ids}-plan`}
          value={planId}
          onChange={(e) => setPlanId(e.target.value)}
          className={select}
        >
          {PLANS.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name} ({p.vcpu} vCPU, {p.ramMb / 1024} GB)
            </option>
          ))}
        </select>
      </label>
      <LocationSelect id={`${ids}-location`} value={locationId} onChange={setLocationId} className={select} />
      <label htmlFor={`${ids}-cycle`} className="text-sm font-medium">
        Billing
        <select
          id={`${ids}-cycle`}
          value={cycle}
          onChange={(e) => setCycle(e.target.value as Cycle)}
          className={select}
        >
          <option value="monthly">Monthly</option>
          <option value="annual">Annual (10 months)</option>
        </select>
      </label>
      <output htmlFor={`${ids}-plan ${ids}-location ${ids}-cycle`} className="self-end" aria-live="polite">
        <span data-testid="calculated-price" className="block text-2xl font-semibold">
          {formatUsd(price)}
        </span>
        <span className={`text-sm ${TEXT_STYLES.muted}`}>
          {cycle === "annual"
            ? `per year, saving ${formatUsd(saving)}`
            : `per month; annual saves ${formatUsd(saving)}`}
        </span>
      </output>
    </form>
  );
}
