"use client";

import { type FormEvent, useCallback, useEffect, useState } from "react";

type ApiKey = {
  id: number;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
};

/** API keys: listed by prefix, created (shown once), revoked. Sessions of the dashboard are not listed. */
export function KeysPanel() {
  const [keys, setKeys] = useState<ApiKey[]>();
  const [created, setCreated] = useState<string>();
  const [error, setError] = useState("");

  const load = useCallback(async () => {
    const response = await fetch("/bff/keys");
    if (response.status === 401) {
      window.location.assign("/signin");
      return;
    }
    const body = (await response.json()) as { keys?: ApiKey[]; message?: string };
    if (body.keys) setKeys(body.keys);
    else setError(body.message ?? "The keys could not be loaded.");
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "").trim();
    const response = await fetch("/bff/keys", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(name ? { name } : {}),
    });
    const body = (await response.json()) as { api_key?: string; message?: string };
    if (body.api_key) {
      setCreated(body.api_key);
      setError("");
      await load();
    } else setError(body.message ?? "The key could not be created.");
  }

  async function revoke(key: ApiKey) {
    const response = await fetch(`/bff/keys/${key.id}`, { method: "DELETE" });
    if (!response.ok) setError("The key could not be revoked.");
    await load();
  }

  return (
    <div className="space-y-6">
      <form onSubmit={create} className="flex flex-wrap items-end gap-3">
        <div className="space-y-1">
          <label htmlFor="key-name" className="block text-sm font-medium">
            Name (optional)
          </label>
          <input
            id="key-name"
            name="name"
            maxLength={64}
            className="rounded border border-zinc-300 px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
          />
        </div>
        <button
          type="submit"
          className="rounded bg-zinc-900 px-4 py-2 text-white dark:bg-zinc-100 dark:text-zinc-900"
        >
          Create key
        </button>
      </form>
      {created && (
        <div className="rounded border border-amber-400 bg-amber-50 p-3 text-amber-900 dark:bg-amber-950 dark:text-amber-100">
          <p>Copy this key now: it cannot be shown again.</p>
          <code data-testid="new-key" className="break-all">
            {created}
          </code>
        </div>
      )}
      {error && (
        <p role="alert" className="text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
      {keys === undefined ? (
        <p>Loading keys…</p>
      ) : keys.length === 0 ? (
        <p>No API keys. Create one for scripts and the command line.</p>
      ) : (
        <table className="w-full text-left text-sm" aria-label="API keys">
          <thead>
            <tr>
              <th className="py-2">Name</th>
              <th>Prefix</th>
              <th>Created</th>
              <th>Last used</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id} className="border-t border-zinc-200 dark:border-zinc-800">
                <td className="py-2">{key.name ?? "—"}</td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>{key.created_at.slice(0, 10)}</td>
                <td>{key.last_used_at?.slice(0, 16).replace("T", " ") ?? "never"}</td>
                <td className="text-right">
                  <button type="button" className="underline" onClick={() => revoke(key)}>
                    Revoke <span className="sr-only">{key.prefix}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
