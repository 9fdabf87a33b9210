import { processWide } from "./process-wide";

/**
 * Named signals within the process, for a lower layer to say that something happened which a higher one acts
 * on without the lower one importing it: accounts say credentials were revoked, the console gateway (which
 * accounts may not know) closes what they opened. A listener's failure is its own; the sender goes on.
 */
export type SignalName = "credentials-revoked";

const listeners = () => processWide("signals", () => new Map<SignalName, Set<() => void>>());

export function signal(name: SignalName): void {
  for (const listener of listeners().get(name) ?? []) {
    try {
      listener();
    } catch (error) {
      console.error(`signal ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Calls `listener` on every `name` signal from now on. */
export function onSignal(name: SignalName, listener: () => void): void {
  const all = listeners();
  const set = all.get(name) ?? new Set();
  set.add(listener);
  all.set(name, set);
}
