import { expect } from "vitest";
import { fund } from "./funding";
import { api, createAccount, waitForServer } from "./helpers";

/**
 * A new account funded with 40 USD and one simulated server (pup, nl, Debian 13, plus `order`'s fields),
 * returned once it is active.
 */
export async function accountWithActiveServer<T extends { status: string }>(order: Record<string, unknown>) {
  const { apiKey } = await createAccount();
  await fund(apiKey, 40);
  const ordered = await api("/servers", {
    method: "POST",
    key: apiKey,
    body: { plan: "pup", location: "nl", os: "debian-13", ...order },
  });
  expect(ordered.status).toBe(201);
  const server = await waitForServer<T>(apiKey, ordered.body.id as number, (s) => s.status === "active");
  return { apiKey, server };
}
