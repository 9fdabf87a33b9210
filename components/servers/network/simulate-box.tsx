"use client";

import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, INPUT_STYLE } from "@/components/ui/field";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { Alert } from "../../ui/alert";
import { DirectionField, ProtocolField } from "./packet-fields";
import type { Simulation } from "./queries";

type Question = {
  direction: "in" | "out";
  protocol: "tcp" | "udp" | "icmp";
  port: number | null;
  remote_address: string;
};

/** What the answer says in a sentence: "Accepted by rule 1.", "Dropped: no rule matched (the default)." */
function sentence(result: Simulation): string {
  const verdict = result.verdict === "accept" ? "Accepted" : "Dropped";
  if (result.decided_by === "rule") return `${verdict} by rule ${(result.rule_index ?? 0) + 1}.`;
  if (result.decided_by === "smtp_policy")
    return "Dropped: outbound mail (port 25) is blocked on this server.";
  return `${verdict}: no rule matched (the default for this direction).`;
}

/** Asks the server's firewall whether the first packet of a new connection would pass, and why. */
export function SimulateBox({ serverId }: { serverId: number }) {
  const ids = useId();
  const [direction, setDirection] = useState<Question["direction"]>("in");
  const [protocol, setProtocol] = useState<Question["protocol"]>("tcp");
  const [port, setPort] = useState("22");
  const [remote, setRemote] = useState("203.0.113.7");
  const ask = useMutation({
    mutationFn: (question: Question) =>
      bffFetch<Simulation>(`/bff/servers/${serverId}/firewall/simulate`, { method: "POST", body: question }),
  });
  const takesPort = protocol !== "icmp";

  return (
    <form
      aria-label="Would a packet pass?"
      className="space-y-2"
      onSubmit={(event) => {
        event.preventDefault();
        ask.mutate({
          direction,
          protocol,
          port: takesPort ? Number(port) : null,
          remote_address: remote.trim(),
        });
      }}
    >
      <h4 className="text-sm font-semibold">Would a packet pass?</h4>
      <div className="grid gap-2 sm:grid-cols-[auto_auto_6rem_1fr_auto] sm:items-end">
        <DirectionField id={`${ids}-direction`} value={direction} onChange={setDirection} />
        <ProtocolField
          id={`${ids}-protocol`}
          value={protocol}
          onChange={setProtocol}
          protocols={["tcp", "udp", "icmp"] as const}
        />
        <Field id={`${ids}-port`} label="Port">
          <input
            id={`${ids}-port`}
            className={INPUT_STYLE}
            inputMode="numeric"
            value={takesPort ? port : ""}
            disabled={!takesPort}
            onChange={(event) => setPort(event.target.value)}
          />
        </Field>
        <Field id={`${ids}-remote`} label="Other end (address)">
          <input
            id={`${ids}-remote`}
            className={INPUT_STYLE}
            value={remote}
            onChange={(event) => setRemote(event.target.value)}
            required
          />
        </Field>
        <Button type="submit" disabled={ask.isPending}>
          Check
        </Button>
      </div>
      {ask.data && (
        <p role="status" className="text-sm" data-testid="simulation-result">
          {sentence(ask.data)}
        </p>
      )}
      {ask.error && <Alert className="text-sm">{errorMessage(ask.error)}</Alert>}
    </form>
  );
}
