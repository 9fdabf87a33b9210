/**
 * What a customer is told when host work fails. Errors from virsh, cloud-localds and ssh name hypervisor
 * hosts, paths and commands: they go to the operator's log and the job's `last_error`, and the customer gets
 * a fixed sentence chosen by what kind of failure it was.
 */

/** A failure described in our own words, safe to show as it is. */
export class CustomerFacingError extends Error {}

/** What a customer is told when the host could not be reached: nothing was done on it. */
export const HOST_UNREACHABLE = "the host could not be reached";

const REASONS: [RegExp, string][] = [
  [
    /failed to connect to the hypervisor|no valid connection|cannot recv data|could not resolve hostname|connection refused|connection reset|connection to the host closed|connection timed out|no route to host|network is unreachable|end of file while reading data|host key verification failed|permission denied \(|authentication failed|libssh/i,
    HOST_UNREACHABLE,
  ],
  [
    /no image for|cannot access storage file|storage volume not found|no storage vol/i,
    "the system image is missing on the host",
  ],
  [/address pool of .* is exhausted/i, "no address was free on the host"],
  [/no space left on device|ENOSPC|not enough space/i, "the host's storage is full"],
  [/timed out|ETIMEDOUT/i, "the host did not answer in time"],
];

/** A program stopped at its timeout (execFile's `killed`, VirshError's `timedOut`). */
const cutOff = (error: unknown) =>
  typeof error === "object" &&
  error !== null &&
  ((error as { killed?: unknown }).killed === true || (error as { timedOut?: unknown }).timedOut === true);

/** The customer's version of a host failure: a fixed reason, never the error's own text. */
export function customerReason(error: unknown): string {
  if (error instanceof CustomerFacingError) return error.message;
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const known = REASONS.find(([pattern]) => pattern.test(text))?.[1];
  return known ?? (cutOff(error) ? "the host did not answer in time" : "the host reported an error");
}
