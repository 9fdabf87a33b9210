import type { ReactNode } from "react";
import { TEXT_STYLES } from "../../ui/alert";

/** What a section says when the server's state leaves nothing to do there. */
export function SectionUnavailable({ children }: { children: ReactNode }) {
  return (
    <p data-testid="section-unavailable" className={`text-sm ${TEXT_STYLES.muted}`}>
      {children}
    </p>
  );
}
