import type { Cycle } from "@/lib/catalog/catalog";

/** Monthly or annual billing; the annual option says what it saves. */
export function BillingCycle(props: {
  value: Cycle;
  onChange: (cycle: Cycle) => void;
  annualSaving: string;
}) {
  const option = (cycle: Cycle, label: string) => (
    <label className="flex items-center gap-2">
      <input
        type="radio"
        name="cycle"
        value={cycle}
        checked={props.value === cycle}
        onChange={() => props.onChange(cycle)}
      />
      {label}
    </label>
  );
  return (
    <fieldset>
      <legend className="text-sm font-medium">Billing</legend>
      <div className="mt-1 flex flex-wrap gap-4">
        {option("monthly", "Monthly")}
        {option("annual", `Annual (saves ${props.annualSaving})`)}
      </div>
    </fieldset>
  );
}
