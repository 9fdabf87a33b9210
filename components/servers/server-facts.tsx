import type { Server } from "@/lib/dashboard/queries/types";
import { formatApiUsd } from "@/lib/util/cents";
import { TEXT_STYLES } from "../ui/alert";
import { formatUtc } from "./status-badge";

/** A term of the facts list, in the muted look. */
const Term = ({ children }: { children: string }) => <dt className={TEXT_STYLES.muted}>{children}</dt>;

/**
 * The catalog's names of plans, locations and systems by id, given by the page from the server, so the
 * catalog's code stays out of the overview's first load (its budget, e2e/browser/page-weight.spec.ts).
 */
export type CatalogWords = {
  plans: Record<string, string>;
  locations: Record<string, { city: string; country: string }>;
  os: Record<string, string>;
};

/** What a server is and where to reach it: address, plan, place, system, SSH, size, machine, power, dates. */
export function ServerFacts({ server, words }: { server: Server; words: CatalogWords }) {
  const location = words.locations[server.location];
  return (
    <dl data-testid="server-facts" className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
      <Term>IPv4</Term>
      <dd className="font-mono" data-testid="server-ip">
        {server.ip ?? "assigned when built"}
      </dd>
      <Term>Plan</Term>
      <dd>
        {words.plans[server.plan] ?? server.plan}, {formatApiUsd(server.price_usd)} per{" "}
        {server.cycle === "annual" ? "year" : "month"}
      </dd>
      <Term>Location</Term>
      <dd>
        {location?.city ?? server.location}, {location?.country}
      </dd>
      <Term>System</Term>
      <dd>{words.os[server.os] ?? server.os}</dd>
      <Term>SSH</Term>
      <dd className="font-mono break-all" data-testid="server-ssh">
        {server.ip
          ? `ssh ${server.ssh_port && server.ssh_port !== 22 ? `-p ${server.ssh_port} ` : ""}root@${server.ip}`
          : "—"}
      </dd>
      <Term>Host key</Term>
      <dd className="font-mono break-all" data-testid="server-host-key">
        {server.ssh_host_key_fingerprint ?? "—"}
      </dd>
      <Term>Size</Term>
      <dd>
        {server.vcpus ?? "?"} vCPU · {server.memory_mb ?? "?"} MB RAM · {server.disk_gb ?? "?"} GB disk
      </dd>
      <Term>Machine</Term>
      <dd data-testid="server-provisioner">
        {server.provisioner === "libvirt"
          ? "Real virtual machine (KVM/QEMU)"
          : "Simulated (demo): no machine runs"}
      </dd>
      <Term>Power</Term>
      <dd data-testid="power-state">{server.power_state ?? "—"}</dd>
      <Term>Paid until</Term>
      <dd data-testid="server-expires">{formatUtc(server.expires_at)}</dd>
      {server.terminates_at && (
        <>
          <Term>Terminated on</Term>
          <dd className={TEXT_STYLES.error}>{formatUtc(server.terminates_at)} unless renewed</dd>
        </>
      )}
      {server.terminated_at && (
        <>
          <Term>Terminated</Term>
          <dd>{formatUtc(server.terminated_at)}</dd>
        </>
      )}
    </dl>
  );
}
