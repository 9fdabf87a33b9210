"use client";

import { type FormEvent, useState } from "react";
import { SecondFactorField, secondFactorOf } from "@/components/security/second-factor-field";
import { TEXT_STYLES } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, INPUT_STYLE } from "@/components/ui/field";
import { SCOPE_GROUPS, SCOPE_PRESETS, SCOPES, withNeededScopes } from "@/lib/api/scopes";
import { API_KEY_SCOPES, type ApiKeyScope, SPEND_CAP_PERIODS, type SpendCapPeriod } from "@/lib/db/types";

/** The body of POST /keys as this form fills it. */
export type NewKeyRequest = {
  name?: string;
  scopes?: ApiKeyScope[];
  expires_at?: string;
  allowed_networks?: string[];
  spend_cap?: { amount_usd: number; period: SpendCapPeriod };
  totp_code?: string;
  recovery_code?: string;
};

/** Every scope, including any added later: the key the form made before scopes existed. */
const EVERYTHING = "everything";
const CUSTOM = "custom";
const EXPIRY_DAYS = [7, 30, 90, 365] as const;

const presetScopes = (id: string) => new Set(SCOPE_PRESETS.find((preset) => preset.id === id)?.scopes ?? []);

/**
 * The new key's form: what it may do (a preset or scopes chosen by purpose, each bringing what it needs),
 * how long it lives (90 days unless changed), where it may be used from and how much it may spend.
 */
export function KeyForm(props: {
  needsCode: boolean;
  pending: boolean;
  onSubmit: (request: NewKeyRequest) => void;
}) {
  const [preset, setPreset] = useState("read-only");
  const [chosen, setChosen] = useState(() => presetScopes("read-only"));
  const [capped, setCapped] = useState(false);
  const [cap, setCap] = useState({ amount: "50", period: "month" as SpendCapPeriod });
  const held = withNeededScopes([...chosen]);

  function choosePreset(id: string) {
    setPreset(id);
    if (id === EVERYTHING) return;
    setChosen(presetScopes(id));
    const budget = SCOPE_PRESETS.find((entry) => entry.id === id)?.spendCap;
    setCapped(Boolean(budget));
    if (budget) setCap({ amount: String(budget.amountUsd), period: budget.period });
  }

  function toggle(scope: ApiKeyScope, on: boolean) {
    const next = new Set(chosen);
    if (on) next.add(scope);
    else next.delete(scope);
    setChosen(next);
    setPreset(CUSTOM);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const days = Number(text("expires"));
    const networks = text("networks")
      .split(/[\s,]+/)
      .filter(Boolean);
    props.onSubmit({
      ...(text("name") ? { name: text("name") } : {}),
      ...(preset === EVERYTHING ? {} : { scopes: held.scopes }),
      ...(days > 0 ? { expires_at: new Date(Date.now() + days * 86_400_000).toISOString() } : {}),
      ...(networks.length > 0 ? { allowed_networks: networks } : {}),
      ...(capped ? { spend_cap: { amount_usd: Number(cap.amount), period: cap.period } } : {}),
      ...(props.needsCode ? secondFactorOf(form) : {}),
    });
  }

  return (
    <form onSubmit={submit} className="space-y-4 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 className="text-lg font-semibold">New key</h2>
      <Field id="key-name" label="Name (optional)">
        <input id="key-name" name="name" maxLength={64} className={INPUT_STYLE} />
      </Field>
      <fieldset>
        <legend className="text-sm font-medium">What it may do</legend>
        <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-sm">
          {[...SCOPE_PRESETS, { id: EVERYTHING, title: "Every scope" }].map((option) => (
            <label key={option.id} className="flex items-center gap-1">
              <input
                type="radio"
                name="preset"
                checked={preset === option.id}
                onChange={() => choosePreset(option.id)}
              />
              {option.title}
            </label>
          ))}
        </div>
        {preset === EVERYTHING ? (
          <p className={`mt-2 text-sm ${TEXT_STYLES.muted}`}>
            Every scope, including any added later, as keys had before scopes existed.
          </p>
        ) : (
          <div className="mt-2 grid gap-3 sm:grid-cols-2">
            {SCOPE_GROUPS.map((group) => (
              <fieldset key={group.id} className="text-sm">
                <legend className="font-medium">{group.title}</legend>
                {API_KEY_SCOPES.filter((scope) => SCOPES[scope].group === group.id).map((scope) => {
                  const brought = held.added.includes(scope);
                  const facts: { summary: string; dangerous?: true } = SCOPES[scope];
                  return (
                    <label key={scope} className="mt-1 flex items-start gap-2">
                      <input
                        type="checkbox"
                        className="mt-1"
                        aria-label={scope}
                        checked={chosen.has(scope) || brought}
                        disabled={brought}
                        onChange={(event) => toggle(scope, event.target.checked)}
                      />
                      <span>
                        <code className="font-mono text-xs">{scope}</code>
                        {facts.dangerous && <span className={TEXT_STYLES.error}> (sensitive)</span>}
                        <span className={`block ${TEXT_STYLES.muted}`}>
                          {facts.summary}
                          {brought && " (needed by another scope)"}
                        </span>
                      </span>
                    </label>
                  );
                })}
              </fieldset>
            ))}
          </div>
        )}
      </fieldset>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field id="key-expires" label="Expires">
          <select id="key-expires" name="expires" defaultValue="90" className={INPUT_STYLE}>
            {EXPIRY_DAYS.map((days) => (
              <option key={days} value={days}>
                in {days} days
              </option>
            ))}
            <option value="0">never</option>
          </select>
        </Field>
        <Field
          id="key-networks"
          label="Allowed networks (optional)"
          hint="IPv4 or IPv6 CIDRs, one per line; empty: anywhere."
        >
          <textarea id="key-networks" name="networks" rows={2} className={`${INPUT_STYLE} font-mono`} />
        </Field>
      </div>
      <fieldset className="text-sm">
        <label className="flex items-center gap-2 font-medium">
          <input type="checkbox" checked={capped} onChange={(event) => setCapped(event.target.checked)} />
          Spend cap
        </label>
        {capped && (
          <div className="mt-1 flex flex-wrap items-end gap-3">
            <Field id="key-cap" label="USD">
              <input
                id="key-cap"
                type="number"
                min="0"
                step="0.01"
                required
                value={cap.amount}
                onChange={(event) => setCap({ ...cap, amount: event.target.value })}
                className={INPUT_STYLE}
              />
            </Field>
            <Field id="key-cap-period" label="per">
              <select
                id="key-cap-period"
                value={cap.period}
                onChange={(event) => setCap({ ...cap, period: event.target.value as SpendCapPeriod })}
                className={INPUT_STYLE}
              >
                {SPEND_CAP_PERIODS.map((period) => (
                  <option key={period} value={period}>
                    {period === "total" ? "in total" : period}
                  </option>
                ))}
              </select>
            </Field>
            <span className={TEXT_STYLES.muted}>Orders, renewals and paid changes made with this key.</span>
          </div>
        )}
      </fieldset>
      {props.needsCode && <SecondFactorField id="key-code" />}
      <Button type="submit" variant="primary" disabled={props.pending}>
        Create key
      </Button>
    </form>
  );
}
