"use client";

import { useSuspenseQuery } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { LocationSelect } from "@/components/catalog/location-select";
import { annualSavingCents, type Cycle, LOCATIONS, OS_IMAGES, PLANS, priceFor } from "@/lib/catalog/catalog";
import { accountQuery } from "@/lib/dashboard/queries/account";
import { BffError } from "@/lib/dashboard/queries/bff-fetch";
import { apiUsdToCents, formatUsd } from "@/lib/util/cents";
import { TEXT_STYLES } from "../ui/alert";
import { INPUT_STYLE } from "../ui/field";
import { AccessFields } from "./access-fields";
import { BillingCycle } from "./billing-cycle";
import { OrderSubmit } from "./order-submit";
import { OrderSummary } from "./order-summary";
import { OsSelect } from "./os-select";
import { PlanPicker } from "./plan-picker";
import { type Order, useOrder } from "./use-order";
import { UserDataField } from "./user-data-field";

/**
 * The order form: the price is computed live with the catalog's `priceFor` (the API's own function) and set
 * against the balance; when the balance is short it shows the deficit and a top-up of at least the minimum.
 */
export function OrderForm({
  unavailableOs = [],
}: {
  /** OS ids this deployment has no image for: shown, but cannot be chosen. */
  unavailableOs?: string[];
}) {
  const ids = useId();
  // Prefetched by the page; refreshed after an order or a refusal for the balance.
  const { data: account } = useSuspenseQuery(accountQuery());
  const [planId, setPlanId] = useState(PLANS[0]?.id ?? "");
  const [locationId, setLocationId] = useState(LOCATIONS[0]?.id ?? "");
  const [osId, setOsId] = useState(
    OS_IMAGES.find((os) => !unavailableOs.includes(os.id))?.id ?? OS_IMAGES[0]?.id ?? "",
  );
  const [cycle, setCycle] = useState<Cycle>("monthly");
  const [autoRenew, setAutoRenew] = useState(false);
  const order = useOrder();

  const plan = PLANS.find((p) => p.id === planId);
  const location = LOCATIONS.find((l) => l.id === locationId);
  if (!plan || !location) return null;
  const priceCents = priceFor(plan, location, cycle);
  const balanceCents = apiUsdToCents(account.balance_usd);
  const deficitCents = Math.max(0, priceCents - balanceCents);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const hostname = String(form.get("hostname") ?? "").trim();
    const rootPassword = String(form.get("root_password") ?? "");
    const sshKey = String(form.get("ssh_key") ?? "").trim();
    const userData = String(form.get("user_data") ?? "");
    order.mutate({
      plan: planId as Order["plan"],
      location: locationId as Order["location"],
      os: osId as Order["os"],
      cycle,
      auto_renew: autoRenew,
      ...(hostname ? { hostname } : {}),
      ...(rootPassword ? { root_password: rootPassword } : {}),
      ...(sshKey ? { ssh_keys: [sshKey] } : {}),
      ...(userData.trim() ? { user_data: userData } : {}),
    });
  }

  // A refusal about one field is shown under that field (OrderSubmit shows any other).
  const refused = order.error instanceof BffError ? order.error : undefined;

  return (
    <form onSubmit={submit} className="grid gap-8 lg:grid-cols-[1fr_18rem]" aria-label="Order a server">
      <div className="space-y-6">
        <PlanPicker value={planId} onChange={setPlanId} location={location} />

        <div className="grid gap-4 sm:grid-cols-2">
          <LocationSelect
            id={`${ids}-location`}
            value={locationId}
            onChange={setLocationId}
            className={INPUT_STYLE}
          />
          <OsSelect id={`${ids}-os`} value={osId} onChange={setOsId} unavailable={unavailableOs} />
        </div>

        <BillingCycle
          value={cycle}
          onChange={setCycle}
          annualSaving={formatUsd(annualSavingCents(plan, location))}
        />

        <AccessFields ids={ids} hostnamePlaceholder={`${plan.id}-${location.id}-…`} refusal={refused} />
        <UserDataField
          id={`${ids}-user-data`}
          error={refused?.code === "invalid_user_data" ? refused.message : undefined}
        />

        <label className="flex items-start gap-2 text-sm">
          <input
            type="checkbox"
            name="auto_renew"
            checked={autoRenew}
            onChange={(e) => setAutoRenew(e.target.checked)}
            className="mt-1"
          />
          <span>
            <span className="font-medium">Renew automatically from the balance</span>
            <span className={`block ${TEXT_STYLES.muted}`}>
              When off, the server is stopped at the end of the paid period and deleted after a grace period
              unless you renew it.
            </span>
          </span>
        </label>

        <OrderSubmit
          priceCents={priceCents}
          deficitCents={deficitCents}
          pending={order.isPending}
          error={order.error}
        />
      </div>

      <OrderSummary
        priceCents={priceCents}
        balanceCents={balanceCents}
        deficitCents={deficitCents}
        cycle={cycle}
      />
    </form>
  );
}
