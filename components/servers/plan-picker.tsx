import { type Location, PLANS, priceFor } from "@/lib/catalog/catalog";
import { formatUsd } from "@/lib/util/cents";
import { TEXT_STYLES } from "../ui/alert";
import { RadioCard } from "../ui/radio-card";

/** The plans as cards, each with its size and its monthly price at the chosen location. */
export function PlanPicker(props: { value: string; onChange: (id: string) => void; location: Location }) {
  return (
    <fieldset>
      <legend className="text-lg font-semibold">Plan</legend>
      <div className="mt-2 grid gap-2 sm:grid-cols-2">
        {PLANS.map((plan) => (
          <RadioCard
            key={plan.id}
            name="plan"
            value={plan.id}
            checked={props.value === plan.id}
            onChange={() => props.onChange(plan.id)}
          >
            <span>
              <span className="block font-medium">{plan.name}</span>
              <span className={`block text-sm ${TEXT_STYLES.muted}`}>
                {plan.vcpu} vCPU · {plan.ramMb / 1024} GB RAM · {plan.diskGb} GB disk · {plan.trafficTb} TB
              </span>
              <span className="block text-sm">
                {formatUsd(priceFor(plan, props.location, "monthly"))} per month here
              </span>
            </span>
          </RadioCard>
        ))}
      </div>
    </fieldset>
  );
}
