import { LOCATIONS, monthlyPriceCents, PLANS } from "@/lib/catalog/catalog";
import { formatUsd } from "@/lib/util/cents";

const cheapestModifier = Math.min(...LOCATIONS.map((l) => l.modifierBp));
const cheapestLocation = LOCATIONS.find((l) => l.modifierBp === cheapestModifier) ?? LOCATIONS[0];

/** Every plan with its resources and its lowest monthly price (the cheapest location). */
export function PlanTable() {
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
      <table className="w-full min-w-[36rem] text-left text-sm">
        <caption className="sr-only">KVM plans and monthly prices</caption>
        <thead className="bg-zinc-50 text-xs uppercase tracking-wide text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
          <tr>
            <th scope="col" className="px-3 py-2">
              Plan
            </th>
            <th scope="col" className="px-3 py-2">
              vCPU
            </th>
            <th scope="col" className="px-3 py-2">
              RAM
            </th>
            <th scope="col" className="px-3 py-2">
              NVMe
            </th>
            <th scope="col" className="px-3 py-2">
              Traffic
            </th>
            <th scope="col" className="px-3 py-2 text-right">
              From / month
            </th>
          </tr>
        </thead>
        <tbody>
          {PLANS.map((plan) => (
            <tr key={plan.id} className="border-t border-zinc-200 dark:border-zinc-800">
              <th scope="row" className="px-3 py-2 font-medium">
                {plan.name} <span className="font-mono text-xs text-zinc-500">{plan.id}</span>
              </th>
              <td className="px-3 py-2">{plan.vcpu}</td>
              <td className="px-3 py-2">{plan.ramMb / 1024} GB</td>
              <td className="px-3 py-2">{plan.diskGb} GB</td>
              <td className="px-3 py-2">{plan.trafficTb} TB</td>
              <td className="px-3 py-2 text-right font-mono">
                {cheapestLocation ? formatUsd(monthlyPriceCents(plan, cheapestLocation)) : ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
