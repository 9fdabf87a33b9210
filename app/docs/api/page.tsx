import type { Metadata } from "next";
import { Guide } from "@/components/docs/guide";
import { apiReference, MethodLabel, Prose } from "@/components/docs/reference";
import { ScopeTable } from "@/components/docs/scopes";
import { TEXT_STYLES } from "@/components/ui/alert";
import { apiGuide } from "@/lib/docs/guide";
import { statusSettings } from "@/lib/status/config";

export const metadata: Metadata = { title: "API reference" };

/** The reference's first page: what the API is, every operation by tag (each tag's page has them in full), the guide. */
export default function ApiReferencePage() {
  const { document, tags, operations } = apiReference();
  const hrefOf = ({ operation }: (typeof operations)[number]) =>
    `${tags.find((tag) => operation.tags?.includes(tag.name))?.href ?? ""}#${operation.operationId}`;
  return (
    <article className="max-w-4xl">
      <h1 className="text-3xl font-bold">API reference</h1>
      <p className={`mt-2 text-sm ${TEXT_STYLES.muted}`}>
        {document.info.title} {document.info.version}. Base URL <code className="font-mono">/api/v1</code>.
        Machine readable:{" "}
        <a className="underline" href="/api/v1/openapi.json">
          /api/v1/openapi.json
        </a>{" "}
        (OpenAPI 3.1).
        {statusSettings().enabled && (
          <>
            {" "}
            How fast orders, credits, consoles and webhooks are, measured:{" "}
            <a className="underline" href="/status">
              the status page
            </a>
            .
          </>
        )}
      </p>
      <Prose text={document.info.description ?? ""} />

      <p className="mt-4 text-sm">
        <a className="underline" href="#guide">
          Guide: errors, limits, keys, sign-in, top-ups, servers, health
        </a>{" "}
        ·{" "}
        <a className="underline" href="#scopes">
          Key scopes
        </a>
      </p>

      <nav aria-label="Endpoints" className="mt-6 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
        <h2 className="text-sm font-semibold">Endpoints</h2>
        <div className="mt-2 grid gap-4 sm:grid-cols-2">
          {tags.map((tag) => (
            <div key={tag.name}>
              <h3 className="text-sm font-semibold">
                <a className="underline" href={tag.href}>
                  {tag.name}
                </a>
              </h3>
              <ul className="mt-1 space-y-1 text-sm">
                {tag.operations.map(({ path, method, operation }) => (
                  <li key={`${method} ${path}`}>
                    <a className="hover:underline" href={`${tag.href}#${operation.operationId}`}>
                      <MethodLabel method={method} /> <span className="font-mono">{path}</span>
                    </a>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      </nav>

      <section aria-labelledby="scopes" className="mt-10">
        <h2 id="scopes" className="text-2xl font-semibold">
          Key scopes
        </h2>
        <p className={`mt-2 text-sm ${TEXT_STYLES.muted}`}>
          Each operation that takes a key needs one scope (its <code className="font-mono">x-scope</code>); a
          key given a scope is given what it brings along. Keys made without scopes hold them all. The Keys
          item of the guide below says how conditions and spend caps work.
        </p>
        <ScopeTable operations={operations} hrefOf={hrefOf} />
      </section>

      <section aria-labelledby="guide" className="mt-10">
        <h2 id="guide" className="text-2xl font-semibold">
          Guide
        </h2>
        <p className={`mt-2 text-sm ${TEXT_STYLES.muted}`}>
          What every operation shares, and the behaviour behind the fields on each section&apos;s page.
        </p>
        <Guide items={apiGuide()} />
      </section>
    </article>
  );
}
