import { inlineParts } from "@/lib/docs/guide";

/** A line of the API's prose with its `code`, **bold** and [links](...) rendered. */
export function InlineText({ text }: { text: string }) {
  return (
    <>
      {inlineParts(text).map((part, index) => {
        // Fixed text split once per render: its order never changes, so the index is a stable key.
        const key = `${index}:${part.kind}`;
        if (part.kind === "code")
          return (
            <code key={key} className="rounded bg-zinc-100 px-1 font-mono text-xs dark:bg-zinc-800">
              {part.text}
            </code>
          );
        if (part.kind === "bold") return <strong key={key}>{part.text}</strong>;
        if (part.kind === "link")
          return (
            <a key={key} className="underline" href={part.href}>
              {part.text}
            </a>
          );
        return <span key={key}>{part.text}</span>;
      })}
    </>
  );
}
