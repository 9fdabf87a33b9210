"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";

/** A refusal of the operator API, with its code and sentence. */
export class OperatorApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Calls the operator API from its own pages: JSON, the session's CSRF token, no cache. */
export async function callOperatorApi(
  csrfToken: string,
  method: "POST" | "PUT" | "DELETE",
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const response = await fetch(`/api/operator/v1${path}`, {
    method,
    headers: { "content-type": "application/json", "x-csrf-token": csrfToken, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
  });
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as { error?: string; message?: string }) : {};
  if (!response.ok) {
    throw new OperatorApiError(
      response.status,
      parsed.error ?? "failed",
      parsed.message ?? "The request failed.",
    );
  }
  return parsed;
}

/**
 * One action of a page: runs the call, then re-renders the page from the server so it shows what changed;
 * keeps the refusal's sentence to show beside the form.
 */
export function useOperatorAction(csrfToken: string) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  function run(
    call: {
      method: "POST" | "PUT" | "DELETE";
      path: string;
      body?: unknown;
      headers?: Record<string, string>;
    },
    success: string | ((answer: unknown) => string),
    after?: () => void,
  ) {
    setError(null);
    setDone(null);
    startTransition(async () => {
      try {
        const answer = await callOperatorApi(csrfToken, call.method, call.path, call.body, call.headers);
        setDone(typeof success === "string" ? success : success(answer));
        after?.();
        router.refresh();
      } catch (failure) {
        setError(failure instanceof Error ? failure.message : "The request failed.");
      }
    });
  }
  return { run, pending, error, done };
}
