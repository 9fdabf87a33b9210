import Link from "next/link";
import { CountBars, MoneyChart, UsageBar } from "@/components/operator/charts";
import { OperatorSignInForm } from "@/components/operator/sign-in-form";
import { TEXT_STYLES } from "@/components/ui/alert";
import { Panel } from "@/components/ui/panel";
import { overview } from "@/lib/operator/overview";
import { currentOperator } from "@/lib/operator/page-session";
import { formatApiUsd } from "@/lib/util/cents";

const percent = (share: number) => Math.round(share * 100);

/** Sign-in for operators, and once signed in the business on one page. */
export default async function OperatorPage() {
  const operator = await currentOperator();
  if (!operator) {
    return (
      <section className="space-y-4">
        <h1 className="text-2xl font-semibold">Operator sign-in</h1>
        <p className={`text-sm ${TEXT_STYLES.muted}`}>
          For the people who run this service. Operators are added on the machine with{" "}
          <code>npm run operator:add</code>, which prints the secret and the authenticator entry once.
        </p>
        <OperatorSignInForm />
      </section>
    );
  }
  const data = await overview();
  const moneyTotal = data.money_in.reduce((sum, day) => sum + day.total_usd, 0);
  const today = data.money_in[data.money_in.length - 1];
  return (
    <section className="space-y-8">
      <h1 className="text-2xl font-semibold">Overview</h1>
      <dl className="grid gap-4 sm:grid-cols-4">
        <Figure label="Money in, 30 days" value={formatApiUsd(moneyTotal)} testId="money-30d" />
        <Figure
          label="Money in today (UTC)"
          value={formatApiUsd(today?.total_usd ?? 0)}
          testId="money-today"
        />
        <Figure
          label={`Balances held (${data.balances.accounts_holding} accounts)`}
          value={formatApiUsd(data.balances.total_usd)}
          testId="balances-held"
        />
        <Figure
          label="Payments needing attention"
          value={String(data.attention)}
          testId="attention-count"
          href="/operator/payments"
        />
      </dl>

      <Panel id="money" title="Money in per day and coin">
        <MoneyChart days={data.money_in} coins={data.coins} />
      </Panel>

      <div className="grid gap-8 md:grid-cols-2">
        <Panel id="servers" title="Servers by status">
          <CountBars counts={data.servers.by_status} label="Servers by status" />
          <p className="text-sm">
            Held by an operator: <span data-testid="held-count">{data.servers.held}</span>
          </p>
        </Panel>
        <Panel id="jobs" title="Failing builds and jobs">
          <p className="text-sm">
            Failed in 7 days: <span data-testid="failed-jobs">{data.jobs.failed_recently}</span> · retrying
            now: {data.jobs.retrying}
          </p>
          <ul className="space-y-1 text-sm">
            {data.jobs.latest_failures.map((job) => (
              <li key={job.id}>
                {job.finished_at?.slice(0, 16).replace("T", " ")} · {job.kind} of server {job.server_id} after{" "}
                {job.attempts} attempts: <span className={TEXT_STYLES.muted}>{job.error}</span>
              </li>
            ))}
          </ul>
        </Panel>
      </div>

      <div className="grid gap-8 md:grid-cols-2">
        <Panel id="watchers" title="Deposit watchers">
          <ul className="space-y-1 text-sm">
            {data.watchers.map((watcher) => (
              <li key={watcher.name}>
                <span className="font-medium">{watcher.name}</span> ({watcher.networks.join(", ")}):{" "}
                <span className={watcher.status === "ok" ? "" : TEXT_STYLES.error}>{watcher.status}</span>
                {watcher.lag !== null && ` · ${watcher.lag} blocks behind`}
                {watcher.flagged_payments > 0 && ` · ${watcher.flagged_payments} flagged`}
                {watcher.problem && <span className={`block ${TEXT_STYLES.muted}`}>{watcher.problem}</span>}
              </li>
            ))}
          </ul>
        </Panel>
        <Panel id="hosts" title="Hosts">
          {data.hosts.length === 0 && <p className="text-sm">No hosts configured (HYPERVISORS).</p>}
          <ul className="space-y-3">
            {data.hosts.map((host) => (
              <li key={host.name} className="space-y-1">
                <p className="text-sm">
                  <Link prefetch={false} href="/operator/hosts" className="font-medium underline">
                    {host.name}
                  </Link>{" "}
                  ({host.location}) · libvirt {host.libvirt}
                  {host.drained && " · drained"}
                </p>
                <UsageBar label="memory" part={percent(host.used.memory)} whole={100} unit="%" />
                <UsageBar label="vCPUs" part={percent(host.used.vcpus)} whole={100} unit="%" />
                <UsageBar label="disk" part={percent(host.used.disk)} whole={100} unit="%" />
              </li>
            ))}
          </ul>
        </Panel>
      </div>
    </section>
  );
}

function Figure(props: { label: string; value: string; testId: string; href?: string }) {
  return (
    <div className="rounded border border-zinc-200 p-4 dark:border-zinc-800">
      <dt className={`text-sm ${TEXT_STYLES.muted}`}>{props.label}</dt>
      <dd data-testid={props.testId} className="text-2xl font-semibold">
        {props.href ? (
          <Link prefetch={false} href={props.href} className="underline">
            {props.value}
          </Link>
        ) : (
          props.value
        )}
      </dd>
    </div>
  );
}
