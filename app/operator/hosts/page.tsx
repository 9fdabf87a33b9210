import type { Metadata } from "next";
import Link from "next/link";
import { UsageBar } from "@/components/operator/charts";
import { ReasonForm } from "@/components/operator/reason-form";
import { TEXT_STYLES } from "@/components/ui/alert";
import { type HostView, hostViews } from "@/lib/operator/hosts";
import { mayDo, requireOperator } from "@/lib/operator/page-session";

export const metadata: Metadata = { title: "Hosts" };

const GIB = 1_073_741_824;

/** Per host: sold and free against what libvirt reports, strays, and draining. */
export default async function HostsPage() {
  const { operator, csrfToken } = await requireOperator();
  const hosts = await hostViews({ fresh: true });
  const canDrain = mayDo(operator, "drain_host");
  return (
    <section className="space-y-8">
      <h1 className="text-2xl font-semibold">Hosts</h1>
      {hosts.length === 0 && <p>No hosts are configured (HYPERVISORS): orders are not placed.</p>}
      {hosts.map((host) => (
        <article
          key={host.name}
          aria-labelledby={`host-${host.name}`}
          data-testid={`host-${host.name}`}
          className="space-y-4 rounded border border-zinc-200 p-4 dark:border-zinc-800"
        >
          <header className="flex flex-wrap items-baseline gap-3">
            <h2 id={`host-${host.name}`} className="text-lg font-semibold">
              {host.name}
            </h2>
            <span className="text-sm">{host.location}</span>
            <code className={`text-xs ${TEXT_STYLES.muted}`}>{host.uri}</code>
            {host.drained && (
              <span data-testid="host-drained" className="text-sm text-amber-800 dark:text-amber-300">
                Drained since {host.drained.at.slice(0, 16).replace("T", " ")} UTC: {host.drained.reason}
              </span>
            )}
          </header>
          <div className="grid gap-6 md:grid-cols-2">
            <div className="space-y-2">
              <h3 className="font-medium">Sold and free</h3>
              <UsageBar
                label="memory sold (MB)"
                part={host.sold.memoryMb}
                whole={host.capacity.memoryMb}
                unit="MB"
              />
              <UsageBar label="vCPUs sold" part={host.sold.vcpus} whole={host.capacity.vcpus} unit="" />
              <UsageBar
                label="disk sold (GB)"
                part={host.sold.diskGb}
                whole={host.capacity.diskGb}
                unit="GB"
              />
              <p className="text-sm">
                Free: <span data-testid="free-memory">{host.free.memoryMb} MB</span> memory,{" "}
                <span data-testid="free-vcpus">{host.free.vcpus}</span> vCPUs,{" "}
                <span data-testid="free-disk">{host.free.diskGb} GB</span> disk
              </p>
            </div>
            <LibvirtReport host={host} />
          </div>
          <details>
            <summary className="cursor-pointer text-sm font-medium">
              {host.servers.length} server{host.servers.length === 1 ? "" : "s"} on it
            </summary>
            <table className="mt-2 w-full text-left text-sm">
              <thead>
                <tr>
                  <th>Server</th>
                  <th>Account</th>
                  <th>Status</th>
                  <th>Plan</th>
                  <th>Memory / vCPUs / disk</th>
                </tr>
              </thead>
              <tbody>
                {host.servers.map((server) => (
                  <tr key={server.id}>
                    <td>
                      {server.id} {server.hostname}
                    </td>
                    <td>
                      <Link
                        prefetch={false}
                        href={`/operator/accounts/${server.accountId}`}
                        className="underline"
                      >
                        {server.accountId}
                      </Link>
                    </td>
                    <td>{server.status}</td>
                    <td>{server.plan}</td>
                    <td>
                      {server.memoryMb} MB / {server.vcpus} / {server.diskGb} GB
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
          {canDrain && (
            <ReasonForm
              csrfToken={csrfToken}
              method={host.drained ? "DELETE" : "POST"}
              path={`/hosts/${host.name}/drain`}
              label={host.drained ? "Why it takes orders again" : "Why drain it (no new orders go there)"}
              submit={host.drained ? "Take back into service" : "Drain host"}
              success={host.drained ? "Taking orders again." : "Drained."}
            />
          )}
        </article>
      ))}
    </section>
  );
}

function LibvirtReport({ host }: { host: HostView }) {
  const report = host.libvirt;
  if (report.status === "simulated") {
    return (
      <div className="space-y-2 text-sm">
        <h3 className="font-medium">What libvirt reports</h3>
        <p data-testid="libvirt-status">
          Simulated provisioner (demo): no hypervisor stands behind this host.
        </p>
      </div>
    );
  }
  if (report.status === "unreachable") {
    return (
      <div className="space-y-2 text-sm">
        <h3 className="font-medium">What libvirt reports</h3>
        <p data-testid="libvirt-status" className={TEXT_STYLES.error}>
          Unreachable: {report.error}
        </p>
      </div>
    );
  }
  return (
    <div className="space-y-2 text-sm">
      <h3 className="font-medium">What libvirt reports</h3>
      <p data-testid="libvirt-status">
        {report.cpus} CPUs, {report.memoryMb} MB memory; our {report.assigned.domains} domains (
        {report.assigned.running} running) are given {report.assigned.memoryMb} MB and {report.assigned.vcpus}{" "}
        vCPUs
        {report.otherDomains.count > 0 &&
          `; ${report.otherDomains.count} other domains hold ${report.otherDomains.memoryMb} MB and ${report.otherDomains.vcpus} vCPUs`}
        .
      </p>
      {report.pool && (
        <UsageBar
          label="disk pool used (GiB)"
          part={Math.round(report.pool.allocationBytes / GIB)}
          whole={Math.round(report.pool.capacityBytes / GIB)}
          unit="GiB"
        />
      )}
      {report.strayDomains.length > 0 && (
        <div>
          <p className="font-medium">Domains with no server row here</p>
          <ul data-testid="stray-domains">
            {report.strayDomains.map((domain) => (
              <li key={domain.name}>
                {domain.name} ({domain.running ? "running" : "shut off"}): {domain.why}
              </li>
            ))}
          </ul>
        </div>
      )}
      {report.missingDomains.length > 0 && (
        <div>
          <p className="font-medium">Servers whose domain is gone</p>
          <ul data-testid="missing-domains">
            {report.missingDomains.map((row) => (
              <li key={row.serverId}>
                {row.serverId} {row.hostname} ({row.status})
              </li>
            ))}
          </ul>
        </div>
      )}
      {report.strayDomains.length === 0 && report.missingDomains.length === 0 && (
        <p>Every domain has its server, and every built server its domain.</p>
      )}
    </div>
  );
}
