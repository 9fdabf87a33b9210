"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, INPUT_STYLE } from "@/components/ui/field";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import type { Server } from "@/lib/dashboard/queries/types";
import { Alert, TEXT_STYLES } from "../../ui/alert";
import { networkKeys, type Ptr, rdnsQuery } from "./queries";

const STATE_LABELS: Record<Ptr["state"], string> = {
  applied: "in DNS",
  pending: "waiting for DNS",
  unmanaged: "not managed here",
};

/**
 * The PTR of each address: the IPv4's and the IPv6 `::1`'s (generated names unless set), and any other
 * address of the /64 that was named. Setting one asks for a name that already resolves to the address.
 */
export function ReverseDnsSection({ server }: { server: Server }) {
  const ids = useId();
  const queryClient = useQueryClient();
  const list = useQuery(rdnsQuery(server.id));
  const [address, setAddress] = useState(server.ip ?? "");
  const [name, setName] = useState("");
  const refresh = () => queryClient.invalidateQueries({ queryKey: networkKeys.rdns(server.id) });
  const change = useMutation({
    mutationFn: (input: { address: string; name?: string }) =>
      bffFetch<Ptr>(`/bff/servers/${server.id}/rdns/${encodeURIComponent(input.address)}`, {
        method: input.name === undefined ? "DELETE" : "PUT",
        ...(input.name === undefined ? {} : { body: { name: input.name } }),
      }),
    onSuccess: () => {
      setName("");
      void refresh();
    },
  });
  const managed = list.data?.managed ?? false;

  return (
    <section aria-labelledby={`${ids}-heading`} className="space-y-2">
      <h3 id={`${ids}-heading`} className="font-semibold">
        Reverse DNS
      </h3>
      {list.data && !managed && (
        <p className={`text-sm ${TEXT_STYLES.muted}`}>This deployment does not manage reverse DNS.</p>
      )}
      <table className="w-full text-left text-sm" data-testid="ptr-records">
        <thead>
          <tr>
            <th className="py-1">Address</th>
            <th>Name</th>
            <th>State</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.data?.records.map((record) => (
            <tr key={record.address} className="align-top">
              <td className="break-all py-1 pr-2 font-mono">{record.address}</td>
              <td className="break-all pr-2">
                {record.name ?? "—"}
                {record.default && <span className={TEXT_STYLES.muted}> (generated)</span>}
              </td>
              <td className="pr-2">
                {STATE_LABELS[record.state]}
                {record.reason && <span className={`block ${TEXT_STYLES.muted}`}>{record.reason}</span>}
              </td>
              <td>
                {managed && !record.default && (
                  <Button
                    onClick={() => change.mutate({ address: record.address })}
                    disabled={change.isPending}
                  >
                    Reset
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {managed && (
        <form
          className="grid gap-2 sm:grid-cols-[1fr_1fr_auto] sm:items-end"
          onSubmit={(event) => {
            event.preventDefault();
            change.mutate({ address: address.trim(), name: name.trim() });
          }}
        >
          <Field id={`${ids}-address`} label="Address" hint="The IPv4, or any address of the IPv6 network.">
            <input
              id={`${ids}-address`}
              className={INPUT_STYLE}
              value={address}
              onChange={(event) => setAddress(event.target.value)}
              required
            />
          </Field>
          <Field id={`${ids}-name`} label="Name" hint="Must already resolve to the address (A or AAAA).">
            <input
              id={`${ids}-name`}
              className={INPUT_STYLE}
              value={name}
              onChange={(event) => setName(event.target.value)}
              placeholder="mail.example.com"
              required
            />
          </Field>
          <Button type="submit" disabled={change.isPending}>
            {change.isPending ? "Checking…" : "Set PTR"}
          </Button>
        </form>
      )}
      {(change.error || list.error) && (
        <Alert className="text-sm" data-testid="ptr-error">
          {errorMessage(change.error ?? list.error)}
        </Alert>
      )}
    </section>
  );
}
