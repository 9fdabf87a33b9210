"use client";

import { useState } from "react";
import { TEXT_STYLES } from "../ui/alert";
import { Field, hintId, INPUT_STYLE } from "../ui/field";
import { useHydrated } from "../ui/use-hydrated";
import { USER_DATA_EXAMPLE } from "./user-data-example";

const LIMIT = 32 * 1024;

/**
 * Optional cloud-init user data for a new system (an order, a reinstall), sent as `user_data` with the form.
 * Folded away until wanted; an example can be put in to start from.
 */
export function UserDataField({ id, error }: { id: string; error?: string }) {
  const [value, setValue] = useState("");
  const hydrated = useHydrated();
  const bytes = new TextEncoder().encode(value).length;
  return (
    <details className="space-y-2 text-sm" open={error ? true : undefined}>
      <summary className="cursor-pointer font-medium">cloud-init user data (optional)</summary>
      <Field
        id={id}
        label="User data"
        hint="A #cloud-config document or a script starting with #!, run once at the first boot. The root password, SSH keys and host key set here always win. After it is sent only its SHA-256 is shown."
        error={error}
        className="block"
      >
        <textarea
          id={id}
          name="user_data"
          rows={8}
          value={value}
          onChange={(event) => setValue(event.target.value)}
          spellCheck={false}
          placeholder={USER_DATA_EXAMPLE}
          aria-describedby={hintId(id)}
          className={`${INPUT_STYLE} font-mono text-xs`}
        />
      </Field>
      <p className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          className="underline"
          disabled={!hydrated}
          onClick={() => setValue(USER_DATA_EXAMPLE)}
        >
          Use the example
        </button>
        <span className={bytes > LIMIT ? TEXT_STYLES.error : TEXT_STYLES.muted}>
          {bytes} of {LIMIT} bytes
        </span>
      </p>
    </details>
  );
}
