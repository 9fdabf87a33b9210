import { Field, hintId, INPUT_STYLE } from "../ui/field";

/**
 * API refusals that belong to one of these fields (or to the user data beside them); any other refusal is shown
 * at the form's end.
 */
export const ACCESS_FIELD_CODES = new Set([
  "invalid_hostname",
  "invalid_root_password",
  "invalid_ssh_key",
  "invalid_user_data",
]);

/**
 * Host name, root password and SSH key: optional, read from the form on submit. A refusal of one of them is
 * shown under it (`refusal`: the API's code and message).
 */
export function AccessFields(props: {
  ids: string;
  hostnamePlaceholder: string;
  refusal?: { code: string; message: string };
}) {
  const errorFor = (code: string) => (props.refusal?.code === code ? props.refusal.message : undefined);
  const hostnameId = `${props.ids}-hostname`;
  const passwordId = `${props.ids}-password`;
  const sshKeyId = `${props.ids}-ssh-key`;
  return (
    <>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={hostnameId} label="Host name (optional)" error={errorFor("invalid_hostname")}>
          <input
            id={hostnameId}
            name="hostname"
            maxLength={253}
            pattern="[A-Za-z0-9]([A-Za-z0-9.\-]*[A-Za-z0-9])?"
            placeholder={props.hostnamePlaceholder}
            autoComplete="off"
            aria-invalid={props.refusal?.code === "invalid_hostname" || undefined}
            className={INPUT_STYLE}
          />
        </Field>
        <Field
          id={passwordId}
          label="Root password (optional)"
          hint="10 to 128 printable characters without spaces; leave empty for a generated one you can reveal later."
          error={errorFor("invalid_root_password")}
        >
          <input
            id={passwordId}
            name="root_password"
            type="password"
            minLength={10}
            pattern="[!-~]{10,128}"
            maxLength={128}
            autoComplete="new-password"
            aria-describedby={hintId(passwordId)}
            className={INPUT_STYLE}
          />
        </Field>
      </div>
      <Field
        id={sshKeyId}
        label="SSH public key for root (optional)"
        hint="One OpenSSH public key (the .pub file). A root password is set as well."
        error={errorFor("invalid_ssh_key")}
        className="block"
      >
        <textarea
          id={sshKeyId}
          name="ssh_key"
          rows={2}
          maxLength={16384}
          spellCheck={false}
          placeholder="ssh-ed25519 AAAA… you@laptop"
          aria-describedby={hintId(sshKeyId)}
          className={`${INPUT_STYLE} font-mono text-xs`}
        />
      </Field>
    </>
  );
}
