"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useId, useRef, useState } from "react";
import { LocationSelect } from "@/components/catalog/location-select";
import { annualSavingCents, type Cycle, LOCATIONS, OS_IMAGES, PLANS, priceFor } from "@/lib/catalog/catalog";
import { apiUsdToCents, formatUsd } from "@/lib/money/cents";
import { accountQuery } from "@/lib/queries/account";
import { BffError, bffFetch, errorMessage } from "@/lib/queries/bff-fetch";
import { type IntentRef, idempotencyKeyFor, settleIntent } from "@/lib/queries/idempotency";
import type { Account, Schemas } from "@/lib/queries/types";
import { BUTTON_STYLES } from "../ui/button";
import { ShortfallTopupLink } from "./shortfall-topup-link";

type Order = Schemas["CreateServerRequest"];
type Created = Schemas["ServerCreated"];

const field =
  "mt-1 block w-full rounded border border-zinc-300 px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900";

/** API refusals that belong to one field of this form. */
const FIELD_CODES = new Set(["invalid_hostname", "invalid_root_password", "invalid_ssh_key"]);

/**
 * The order form: the price is computed live with the catalog's `priceFor` (the API's own function) and set
 * against the balance; when the balance is short it shows the deficit and a top-up of at least the minimum.
 */
export function OrderForm({
  account: initialAccount,
  unavailableOs = [],
}: {
  account: Account;
  /** OS ids this deployment has no image for: shown, but cannot be chosen. */
  unavailableOs?: string[];
}) {
  const ids = useId();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { data: account = initialAccount } = useQuery({ ...accountQuery(), initialData: initialAccount });
  const [planId, setPlanId] = useState(PLANS[0]?.id ?? "");
  const [locationId, setLocationId] = useState(LOCATIONS[0]?.id ?? "");
  const [osId, setOsId] = useState(
    OS_IMAGES.find((os) => !unavailableOs.includes(os.id))?.id ?? OS_IMAGES[0]?.id ?? "",
  );
  const [cycle, setCycle] = useState<Cycle>("monthly");
  const [autoRenew, setAutoRenew] = useState(false);
  // One key per intended order: a double click or a retried request cannot order twice.
  const intent: IntentRef = useRef(undefined);

  const order = useMutation({
    mutationFn: (body: Order) =>
      bffFetch<Created>("/bff/servers", {
        method: "POST",
        body,
        headers: { "idempotency-key": idempotencyKeyFor(intent, body) },
      }),
    onSuccess: async (server) => {
      settleIntent(intent);
      await queryClient.invalidateQueries({ queryKey: ["account"] });
      await queryClient.invalidateQueries({ queryKey: ["servers"] });
      router.push(`/dashboard/servers/${server.id}`);
    },
    onError: async (error) => {
      settleIntent(intent, error);
      // A refusal for the balance means ours is stale: show the current one and its deficit.
      await queryClient.invalidateQueries({ queryKey: ["account"] });
    },
  });

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
    order.mutate({
      plan: planId as Order["plan"],
      location: locationId as Order["location"],
      os: osId as Order["os"],
      cycle,
      auto_renew: autoRenew,
      ...(hostname ? { hostname } : {}),
      ...(rootPassword ? { root_password: rootPassword } : {}),
      ...(sshKey ? { ssh_keys: [sshKey] } : {}),
    });
  }

  const refused = order.error instanceof BffError ? order.error : undefined;
  // A refusal about one field is shown under that field; anything else at the form's end.
  const fieldError = (code: string) =>
    refused?.code === code ? (
      <span role="alert" className="mt-1 block font-normal text-red-700 dark:text-red-400">
        {refused.message}
      </span>
    ) : null;
  const generalError = order.error && !FIELD_CODES.has(refused?.code ?? "");

  return (
    <form onSubmit={submit} className="grid gap-8 lg:grid-cols-[1fr_18rem]" aria-label="Order a server">
      <div className="space-y-6">
        <fieldset>
          <legend className="text-lg font-semibold">Plan</legend>
          <div className="mt-2 grid gap-2 sm:grid-cols-2">
            {PLANS.map((p) => (
              <label
                key={p.id}
                className="flex cursor-pointer items-start gap-3 rounded border border-zinc-300 p-3 has-[:checked]:border-zinc-900 has-[:checked]:ring-1 has-[:checked]:ring-zinc-900 dark:border-zinc-700 dark:has-[:checked]:border-zinc-100 dark:has-[:checked]:ring-zinc-100"
              >
                <input
                  type="radio"
                  name="plan"
                  value={p.id}
                  checked={planId === p.id}
                  onChange={() => setPlanId(p.id)}
                  className="mt-1"
                />
                <span>
                  <span className="block font-medium">{p.name}</span>
                  <span className="block text-sm text-zinc-600 dark:text-zinc-400">
                    {p.vcpu} vCPU · {p.ramMb / 1024} GB RAM · {p.diskGb} GB disk · {p.trafficTb} TB
                  </span>
                  <span className="block text-sm">
                    {formatUsd(priceFor(p, location, "monthly"))} per month here
                  </span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>

        <div className="grid gap-4 sm:grid-cols-2">
          <LocationSelect
            id={`${ids}-location`}
            value={locationId}
            onChange={setLocationId}
            className={field}
          />
          <label htmlFor={`${ids}-os`} className="text-sm font-medium">
            Operating system
            <select id={`${ids}-os`} value={osId} onChange={(e) => setOsId(e.target.value)} className={field}>
              {OS_IMAGES.map((os) => (
                <option key={os.id} value={os.id} disabled={unavailableOs.includes(os.id)}>
                  {os.name}
                  {unavailableOs.includes(os.id) ? " (not available here)" : ""}
                </option>
              ))}
            </select>
          </label>
        </div>

        <fieldset>
          <legend className="text-sm font-medium">Billing</legend>
          <div className="mt-1 flex flex-wrap gap-4">
            <label className="flex items-center gap-2">
              <input
                type="radio"
                name="cycle"
                value="monthly"
                checked={cycle === "monthly"}
                onChange={() => setCycle("monthly")}
              />
              Monthly
            </label>
            <label className="flex items-center gap-2">
              <input
                type="radio"
                name="cycle"
                value="annual"
                checked={cycle === "annual"}
                onChange={() => setCycle("annual")}
              />
              Annual (saves {formatUsd(annualSavingCents(plan, location))})
            </label>
          </div>
        </fieldset>

        <div className="grid gap-4 sm:grid-cols-2">
          <label htmlFor={`${ids}-hostname`} className="text-sm font-medium">
            Host name (optional)
            <input
              id={`${ids}-hostname`}
              name="hostname"
              maxLength={253}
              pattern="[A-Za-z0-9]([A-Za-z0-9.\-]*[A-Za-z0-9])?"
              placeholder={`${plan.id}-${location.id}-…`}
              autoComplete="off"
              aria-invalid={refused?.code === "invalid_hostname" || undefined}
              className={field}
            />
            {fieldError("invalid_hostname")}
          </label>
          <label htmlFor={`${ids}-password`} className="text-sm font-medium">
            Root password (optional)
            <input
              id={`${ids}-password`}
              name="root_password"
              type="password"
              minLength={10}
              pattern="[!-~]{10,128}"
              maxLength={128}
              autoComplete="new-password"
              aria-describedby={`${ids}-password-hint`}
              className={field}
            />
            <span
              id={`${ids}-password-hint`}
              className="mt-1 block font-normal text-zinc-600 dark:text-zinc-400"
            >
              10 to 128 printable characters without spaces; leave empty for a generated one you can reveal
              later.
            </span>
            {fieldError("invalid_root_password")}
          </label>
        </div>

        <label htmlFor={`${ids}-ssh-key`} className="block text-sm font-medium">
          SSH public key for root (optional)
          <textarea
            id={`${ids}-ssh-key`}
            name="ssh_key"
            rows={2}
            maxLength={16384}
            spellCheck={false}
            placeholder="ssh-ed25519 AAAA… you@laptop"
            aria-describedby={`${ids}-ssh-key-hint`}
            className={`${field} font-mono text-xs`}
          />
          <span
            id={`${ids}-ssh-key-hint`}
            className="mt-1 block font-normal text-zinc-600 dark:text-zinc-400"
          >
            One OpenSSH public key (the .pub file). A root password is set as well.
          </span>
          {fieldError("invalid_ssh_key")}
        </label>
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
            <span className="block text-zinc-600 dark:text-zinc-400">
              When off, the server is stopped at the end of the paid period and deleted after a grace period
              unless you renew it.
            </span>
          </span>
        </label>

        <div className="space-y-2 border-t border-zinc-200 pt-4 dark:border-zinc-800">
          {deficitCents > 0 ? (
            <p className="flex flex-wrap items-center gap-3">
              <ShortfallTopupLink deficitCents={deficitCents} className={BUTTON_STYLES.primary} />
              <span className="text-sm text-red-700 dark:text-red-400">
                The balance is {formatUsd(deficitCents)} short of this order.
              </span>
            </p>
          ) : (
            <button type="submit" disabled={order.isPending} className={BUTTON_STYLES.primary}>
              {order.isPending ? "Ordering…" : `Order for ${formatUsd(priceCents)}`}
            </button>
          )}
          <p aria-live="polite" className="text-sm">
            {generalError && (
              <span role="alert" className="text-red-700 dark:text-red-400">
                {errorMessage(order.error)}
                {refused?.code === "insufficient_balance" && " Top up and try again."}
              </span>
            )}
          </p>
        </div>
      </div>

      <aside
        aria-label="Price"
        className="h-fit space-y-3 rounded border border-zinc-200 p-4 lg:sticky lg:top-4 dark:border-zinc-800"
      >
        <dl className="space-y-2">
          <div className="flex justify-between gap-2">
            <dt>Price</dt>
            <dd data-testid="order-price" className="font-semibold">
              {formatUsd(priceCents)} / {cycle === "annual" ? "year" : "month"}
            </dd>
          </div>
          <div className="flex justify-between gap-2">
            <dt>Balance</dt>
            <dd data-testid="order-balance">{formatUsd(balanceCents)}</dd>
          </div>
          {deficitCents > 0 && (
            <div className="flex justify-between gap-2 text-red-700 dark:text-red-400">
              <dt>Short by</dt>
              <dd data-testid="order-deficit">{formatUsd(deficitCents)}</dd>
            </div>
          )}
        </dl>
      </aside>
    </form>
  );
}
