"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, INPUT_STYLE } from "@/components/ui/field";
import { TEXT_STYLES } from "../../ui/alert";
import { DirectionField, ProtocolField } from "./packet-fields";
import type { FirewallRuleInput } from "./queries";

/** Networks typed with commas or spaces between them. */
const networks = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** A new rule, added at the end of the list. */
export function RuleForm(props: {
  firstRule: boolean;
  pending: boolean;
  onAdd: (rule: FirewallRuleInput) => void;
}) {
  const ids = useId();
  const [direction, setDirection] = useState<FirewallRuleInput["direction"]>("in");
  const [protocol, setProtocol] = useState<FirewallRuleInput["protocol"]>("tcp");
  const [ports, setPorts] = useState("22");
  const [sources, setSources] = useState("");
  const [destinations, setDestinations] = useState("");
  const [action, setAction] = useState<FirewallRuleInput["action"]>("accept");
  const [description, setDescription] = useState("");
  const takesPorts = protocol === "tcp" || protocol === "udp";

  return (
    <form
      aria-label="Add a firewall rule"
      className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800"
      onSubmit={(event) => {
        event.preventDefault();
        props.onAdd({
          direction,
          protocol,
          ports: takesPorts && ports.trim() ? ports.trim() : null,
          sources: networks(sources),
          destinations: networks(destinations),
          action,
          description: description.trim() || null,
        });
      }}
    >
      {props.firstRule && (
        <p className={`text-sm ${TEXT_STYLES.muted}`}>
          Once the list holds a rule, inbound connections that no rule accepts are dropped: accept SSH (22)
          first.
        </p>
      )}
      <div className="grid gap-2 sm:grid-cols-4">
        <DirectionField id={`${ids}-direction`} value={direction} onChange={setDirection} />
        <ProtocolField
          id={`${ids}-protocol`}
          value={protocol}
          onChange={setProtocol}
          protocols={["tcp", "udp", "icmp", "any"] as const}
        />
        <Field id={`${ids}-ports`} label="Ports" hint="22, 8000-8100, 80,443; empty: all">
          <input
            id={`${ids}-ports`}
            className={INPUT_STYLE}
            value={takesPorts ? ports : ""}
            disabled={!takesPorts}
            onChange={(event) => setPorts(event.target.value)}
          />
        </Field>
        <Field id={`${ids}-action`} label="Action">
          <select
            id={`${ids}-action`}
            className={INPUT_STYLE}
            value={action}
            onChange={(event) => setAction(event.target.value as FirewallRuleInput["action"])}
          >
            <option value="accept">accept</option>
            <option value="drop">drop</option>
          </select>
        </Field>
      </div>
      <div className="grid gap-2 sm:grid-cols-3">
        <Field id={`${ids}-sources`} label="From (networks)" hint="IPv4 and IPv6, CIDR; empty: any">
          <input
            id={`${ids}-sources`}
            className={INPUT_STYLE}
            value={sources}
            onChange={(event) => setSources(event.target.value)}
          />
        </Field>
        <Field id={`${ids}-destinations`} label="To (networks)" hint="empty: any">
          <input
            id={`${ids}-destinations`}
            className={INPUT_STYLE}
            value={destinations}
            onChange={(event) => setDestinations(event.target.value)}
          />
        </Field>
        <Field id={`${ids}-description`} label="Note">
          <input
            id={`${ids}-description`}
            className={INPUT_STYLE}
            value={description}
            maxLength={100}
            onChange={(event) => setDescription(event.target.value)}
          />
        </Field>
      </div>
      <Button type="submit" variant="primary" disabled={props.pending}>
        {props.pending ? "Applying…" : "Add rule"}
      </Button>
    </form>
  );
}
