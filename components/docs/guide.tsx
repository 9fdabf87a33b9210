import type { GuideItem } from "@/lib/docs/guide";
import { InlineText } from "./inline-text";

/** The API guide's items, nested as written (lib/docs/guide.ts parses docs/api-guide.md). */
export function Guide({ items }: { items: GuideItem[] }) {
  return (
    <ul className="mt-3 list-disc space-y-3 pl-5 text-sm leading-6 text-zinc-700 dark:text-zinc-300">
      {items.map((item) => (
        <li key={item.text.slice(0, 80)}>
          <InlineText text={item.text} />
          {item.children.length > 0 ? (
            <ul className="mt-2 list-[circle] space-y-2 pl-5">
              {item.children.map((child) => (
                <li key={child.text.slice(0, 80)}>
                  <InlineText text={child.text} />
                </li>
              ))}
            </ul>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
