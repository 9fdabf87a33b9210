import { InlineText } from "@/components/docs/inline-text";
import { SchemaFields, type SchemaRegistry } from "@/components/docs/schema-fields";
import { TEXT_STYLES } from "@/components/ui/alert";
import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { ANY_KEY } from "@/lib/api/scopes";

/**
 * The API reference's parts, read from the OpenAPI document: the index page lists every operation by tag, and
 * each tag has a page of its own with its operations in full. One page with every operation held about 9,500
 * elements (1.7 MB of HTML and payload), which a phone took two seconds of script to take in.
 */

type Operation = {
  tags?: string[];
  summary?: string;
  description?: string;
  operationId?: string;
  security?: unknown[];
  /** The key scope the operation needs (`none`: any key); absent when it takes no key. */
  "x-scope"?: string;
  parameters?: Array<{ name: string; in: string; description?: string }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema: object }> };
  responses?: Record<string, { description: string; content?: Record<string, { schema: object }> }>;
};

export type ReferenceOperation = { path: string; method: string; operation: Operation };

/** A tag's page address: `/docs/api/` and its name in lower case, words joined by hyphens. */
export const tagSlug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** The document, its operations in order, and its tags, each with the address of its page. */
export function apiReference() {
  const document = buildOpenApiDocument();
  const registry = (document.components?.schemas ?? {}) as SchemaRegistry;
  const operations: ReferenceOperation[] = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(([method, operation]) => ({
      path,
      method,
      operation,
    })),
  );
  const tags = (document.tags ?? []).map((tag) => ({
    name: tag.name,
    description: tag.description,
    href: `/docs/api/${tagSlug(tag.name)}`,
    operations: operations.filter(({ operation }) => operation.tags?.includes(tag.name)),
  }));
  return { document, registry, operations, tags };
}

const METHOD_STYLE: Record<string, string> = {
  get: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
  post: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
  delete: "bg-rose-100 text-rose-900 dark:bg-rose-950 dark:text-rose-200",
  patch: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
};

/**
 * A tag's page still holds hundreds of elements: the browser lays out and paints a section only once it nears
 * the screen (`content-visibility: auto`); the size it guesses meanwhile keeps the scrollbar steady, and
 * anchors, find-in-page and screen readers still reach every section.
 */
const OFFSCREEN_LAZY = "[content-visibility:auto] [contain-intrinsic-size:auto_32rem]";

/** The document's text: paragraphs with their inline `code` and **bold** rendered. */
export function Prose({ text }: { text: string }) {
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

/** The method as a small coloured label. */
export function MethodLabel({ method }: { method: string }) {
  return (
    <span className={`rounded px-2 py-0.5 font-mono text-xs uppercase ${METHOD_STYLE[method] ?? ""}`}>
      {method}
    </span>
  );
}

/** Who may call an operation: no one needs a key, any key, or a key holding its scope (linked to the list). */
function KeyNeeded({ scope }: { scope: string | undefined }) {
  if (scope === undefined) return <>Public: no key needed</>;
  if (scope === ANY_KEY)
    return <>Requires Authorization: Bearer &lt;API key&gt;, any key whatever its scopes</>;
  return (
    <>
      Requires Authorization: Bearer &lt;API key&gt; holding the scope{" "}
      <a className="underline" href="/docs/api#scopes">
        <code className="font-mono">{scope}</code>
      </a>
    </>
  );
}

/** One operation in full: what it does, who may call it, its parameters, body and answers. */
export function OperationSection({
  entry: { path, method, operation },
  registry,
}: {
  entry: ReferenceOperation;
  registry: SchemaRegistry;
}) {
  return (
    <section
      id={operation.operationId}
      className={`mt-6 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800 ${OFFSCREEN_LAZY}`}
    >
      <h2 className="flex flex-wrap items-center gap-2 text-lg font-semibold">
        <MethodLabel method={method} />
        <span className="font-mono">{path}</span>
        <span className={`text-base font-normal ${TEXT_STYLES.muted}`}>{operation.summary}</span>
      </h2>
      <p className="mt-1 text-xs text-zinc-500">
        <KeyNeeded scope={operation["x-scope"]} />
      </p>
      {operation.description ? <Prose text={operation.description} /> : null}
      {operation.parameters?.length ? (
        <div className="mt-3">
          <h3 className="text-sm font-semibold">Path parameters</h3>
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
          <h3 className="text-sm font-semibold">
            Request body {operation.requestBody.required ? "" : "(optional)"}
          </h3>
          <SchemaFields
            schema={operation.requestBody.content["application/json"].schema}
            registry={registry}
          />
        </div>
      ) : null}
      <h3 className="mt-3 text-sm font-semibold">Responses</h3>
      <dl className="mt-1 space-y-3">
        {Object.entries(operation.responses ?? {}).map(([status, response]) => (
          <div key={status}>
            <dt className="font-mono text-sm font-semibold">{status}</dt>
            <dd className="text-sm">
              <Prose text={response.description} />
              {status.startsWith("2") && response.content?.["application/json"] ? (
                <div className="mt-2">
                  <SchemaFields schema={response.content["application/json"].schema} registry={registry} />
                </div>
              ) : null}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** Every tag's page, the current one marked. */
export function TagNav({ tags, current }: { tags: { name: string; href: string }[]; current: string }) {
  return (
    <nav aria-label="Reference sections" className="mt-4 flex flex-wrap gap-x-4 gap-y-1 text-sm">
      <a className="underline" href="/docs/api">
        Overview and guide
      </a>
      {tags.map((tag) => (
        <a
          key={tag.name}
          href={tag.href}
          aria-current={tag.name === current ? "page" : undefined}
          className={tag.name === current ? "font-semibold" : "underline"}
        >
          {tag.name}
        </a>
      ))}
    </nav>
  );
}
