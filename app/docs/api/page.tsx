import type { Metadata } from "next";
import { Guide } from "@/components/docs/guide";
import { InlineText } from "@/components/docs/inline-text";
import { SchemaFields, type SchemaRegistry } from "@/components/docs/schema-fields";
import { TEXT_STYLES } from "@/components/ui/alert";
import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { apiGuide } from "@/lib/docs/guide";

export const metadata: Metadata = { title: "API reference" };

type Operation = {
  tags?: string[];
  summary?: string;
  description?: string;
  operationId?: string;
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; description?: string }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema: object }> };
  responses?: Record<string, { description: string; content?: Record<string, { schema: object }> }>;
};

const METHOD_STYLE: Record<string, string> = {
  get: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
  post: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
  delete: "bg-rose-100 text-rose-900 dark:bg-rose-950 dark:text-rose-200",
};

/**
 * The page holds about 9,500 elements. The browser lays out and paints a section only once it nears the
 * screen (`content-visibility: auto`); the size it guesses meanwhile keeps the scrollbar steady, and anchors,
 * find-in-page and screen readers still reach every section.
 */
const OFFSCREEN_LAZY = "[content-visibility:auto] [contain-intrinsic-size:auto_32rem]";

/** The document's text: paragraphs with their inline `code` and **bold** rendered. */
function Prose({ text }: { text: string }) {
  return (
    <>
      {text.split("\n\n").map((paragraph) => (
        <p key={paragraph.slice(0, 40)} className="mt-2 text-sm leading-6 text-zinc-700 dark:text-zinc-300">
          <InlineText text={paragraph} />
        </p>
      ))}
    </>
  );
}

export default function ApiReferencePage() {
  const document = buildOpenApiDocument();
  const registry = (document.components?.schemas ?? {}) as SchemaRegistry;
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(([method, operation]) => ({
      path,
      method,
      operation,
    })),
  );
  const tags = document.tags ?? [];

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
      </p>
      <Prose text={document.info.description ?? ""} />

      <p className="mt-4 text-sm">
        <a className="underline" href="#guide">
          Guide: errors, limits, keys, sign-in, top-ups, servers, health
        </a>
      </p>

      <nav aria-label="Endpoints" className="mt-6 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
        <h2 className="text-sm font-semibold">Endpoints</h2>
        <ul className="mt-2 grid gap-1 text-sm sm:grid-cols-2">
          {operations.map(({ path, method, operation }) => (
            <li key={`${method} ${path}`}>
              <a className="hover:underline" href={`#${operation.operationId}`}>
                <span className="font-mono text-xs uppercase">{method}</span>{" "}
                <span className="font-mono">{path}</span>
              </a>
            </li>
          ))}
        </ul>
      </nav>

      <section aria-labelledby="guide" className="mt-10">
        <h2 id="guide" className="text-2xl font-semibold">
          Guide
        </h2>
        <p className={`mt-2 text-sm ${TEXT_STYLES.muted}`}>
          What every operation shares, and the behaviour behind the fields below.
        </p>
        <Guide items={apiGuide()} />
      </section>

      {tags.map((tag) => (
        <section key={tag.name} aria-labelledby={`tag-${tag.name}`} className="mt-10">
          <h2 id={`tag-${tag.name}`} className="text-2xl font-semibold">
            {tag.name}
          </h2>
          {tag.description ? <Prose text={tag.description} /> : null}
          {operations
            .filter(({ operation }) => operation.tags?.includes(tag.name))
            .map(({ path, method, operation }) => (
              <section
                key={`${method} ${path}`}
                id={operation.operationId}
                className={`mt-6 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800 ${OFFSCREEN_LAZY}`}
              >
                <h3 className="flex flex-wrap items-center gap-2 text-lg font-semibold">
                  <span
                    className={`rounded px-2 py-0.5 font-mono text-xs uppercase ${METHOD_STYLE[method] ?? ""}`}
                  >
                    {method}
                  </span>
                  <span className="font-mono">{path}</span>
                  <span className={`text-base font-normal ${TEXT_STYLES.muted}`}>{operation.summary}</span>
                </h3>
                <p className="mt-1 text-xs text-zinc-500">
                  {operation.security ? "Requires Authorization: Bearer <API key>" : "Public: no key needed"}
                </p>
                {operation.description ? <Prose text={operation.description} /> : null}
                {operation.parameters?.length ? (
                  <div className="mt-3">
                    <h4 className="text-sm font-semibold">Path parameters</h4>
                    <ul className="mt-1 text-sm">
                      {operation.parameters.map((p) => (
                        <li key={p.name}>
                          <code className="font-mono text-xs">{p.name}</code>: {p.description}
                        </li>
                      ))}
                    </ul>
                  </div>
                ) : null}
                {operation.requestBody?.content?.["application/json"] ? (
                  <div className="mt-3">
                    <h4 className="text-sm font-semibold">
                      Request body {operation.requestBody.required ? "" : "(optional)"}
                    </h4>
                    <SchemaFields
                      schema={operation.requestBody.content["application/json"].schema}
                      registry={registry}
                    />
                  </div>
                ) : null}
                <h4 className="mt-3 text-sm font-semibold">Responses</h4>
                <dl className="mt-1 space-y-3">
                  {Object.entries(operation.responses ?? {}).map(([status, response]) => (
                    <div key={status}>
                      <dt className="font-mono text-sm font-semibold">{status}</dt>
                      <dd className="text-sm">
                        <Prose text={response.description} />
                        {status.startsWith("2") && response.content?.["application/json"] ? (
                          <div className="mt-2">
                            <SchemaFields
                              schema={response.content["application/json"].schema}
                              registry={registry}
                            />
                          </div>
                        ) : null}
                      </dd>
                    </div>
                  ))}
                </dl>
              </section>
            ))}
        </section>
      ))}
    </article>
  );
}
