import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { apiReference, OperationSection, Prose, TagNav } from "@/components/docs/reference";

type Params = { params: Promise<{ tag: string }> };

/** The tag whose page this is, by its address; undefined for an address no tag has. */
async function tagOf({ params }: Params) {
  const { tag } = await params;
  const reference = apiReference();
  return { reference, tag: reference.tags.find((entry) => entry.href === `/docs/api/${tag}`) };
}

export async function generateMetadata(props: Params): Promise<Metadata> {
  const { tag } = await tagOf(props);
  return { title: tag ? `${tag.name} · API reference` : "API reference" };
}

/** One tag of the reference: its operations in full, each at its own anchor (its operationId). */
export default async function ApiReferenceTagPage(props: Params) {
  const { reference, tag } = await tagOf(props);
  if (!tag) notFound();
  return (
    <article className="max-w-4xl">
      <p className="text-sm">
        <a className="underline" href="/docs/api">
          API reference
        </a>
      </p>
      <h1 className="mt-1 text-3xl font-bold">{tag.name}</h1>
      {tag.description ? <Prose text={tag.description} /> : null}
      <TagNav tags={reference.tags} current={tag.name} />
      {tag.operations.map((entry) => (
        <OperationSection key={`${entry.method} ${entry.path}`} entry={entry} registry={reference.registry} />
      ))}
    </article>
  );
}
