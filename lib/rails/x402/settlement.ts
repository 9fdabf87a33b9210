/**
 * Which token transfer an EIP-3009 authorization made. One transaction can use several authorizations (a
 * contract may call `transferWithAuthorization` many times), so the transfer is never "the first one from the
 * payer": it is the `Transfer` the token emitted right after this authorization's own `AuthorizationUsed`.
 */
import { getAddress, type Log, parseAbi, parseEventLogs } from "viem";

export const EIP3009_EVENTS = parseAbi([
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);

export type AuthorizedTransfer = {
  token: `0x${string}`;
  payer: string;
  nonce: string;
  payTo: string;
  value: bigint;
};

const sameAddress = (a: string, b: string) => getAddress(a) === getAddress(b);

/**
 * The log index of the transfer this authorization made, found in its transaction's logs: the token's
 * `AuthorizationUsed(payer, nonce)`, immediately followed (next log index, same contract) by its
 * `Transfer(payer, payTo, value)` of exactly the authorized value. USDC's FiatToken and our test token both
 * emit the pair in that order. Undefined when the logs hold no such pair.
 */
export function authorizedTransferIndex(
  logs: readonly Log[],
  expected: AuthorizedTransfer,
): number | undefined {
  const events = parseEventLogs({ abi: EIP3009_EVENTS, logs: logs as Log[], strict: true });
  const used = events.find(
    (event) =>
      event.eventName === "AuthorizationUsed" &&
      sameAddress(event.address, expected.token) &&
      sameAddress(event.args.authorizer, expected.payer) &&
      event.args.nonce.toLowerCase() === expected.nonce.toLowerCase(),
  );
  if (!used || used.logIndex === null) return undefined;
  const transfer = events.find(
    (event) =>
      event.logIndex === (used.logIndex ?? -2) + 1 &&
      event.transactionHash === used.transactionHash &&
      event.eventName === "Transfer" &&
      sameAddress(event.address, expected.token) &&
      sameAddress(event.args.from, expected.payer) &&
      sameAddress(event.args.to, expected.payTo) &&
      event.args.value === expected.value,
  );
  return transfer?.logIndex ?? undefined;
}
