import type { ReactNode } from "react";

/**
 * A titled part of a page (a server's renewal, power, root login; the security page's sessions): a section
 * named by its heading, so screen readers list it by that name.
 */
export function Panel(props: { id: string; title: ReactNode; className?: string; children: ReactNode }) {
  const headingId = `${props.id}-heading`;
  return (
    <section aria-labelledby={headingId} className={props.className ?? "space-y-3"}>
      <h2 id={headingId} className="text-lg font-semibold">
        {props.title}
      </h2>
      {props.children}
    </section>
  );
}
