/** The OpenAPI operations of a server's network: its firewall and the reverse DNS of its addresses. */
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { ErrorSchema } from "@/lib/api/schemas/common";
import {
  FirewallSchema,
  PtrListSchema,
  PtrNotConfirmedSchema,
  PtrSchema,
  SetFirewallBody,
  SetPtrBody,
  SimulationBody,
  SimulationSchema,
} from "@/lib/api/schemas/network";
import { MAX_FIREWALL_RULES } from "@/lib/servers/network/limits";
import { serverIdParam, serverNotFound } from "./servers";
import { authed, bodyErrors, DEFAULTS, errorResponse, jsonContent, jsonRequest, responses } from "./shared";

const TAG = "Networking";

const addressParams = serverIdParam.extend({
  address: z.string().max(45).meta({
    description: "The server's IPv4, or any address of its /64 (any spelling: it is read canonically).",
    example: "2001:db8:1:105::25",
  }),
});

const addressNotFound = errorResponse(
  "No server with that id on this account, or the address is not the server's (its IPv4 or an address of its /64).",
  ["not_found"],
);
const badAddress = errorResponse("The path's address is not an IP address.", ["invalid_address"]);
const unmanaged = errorResponse(
  "`rdns_unavailable`: this deployment keeps no reverse DNS (no PowerDNS is configured). Nothing changes.",
  ["rdns_unavailable"],
);

export const networkTag = {
  name: TAG,
  description:
    "Each server has a public IPv4 and, where its host hands out IPv6, a routed /64 (`ipv6_prefix`; the " +
    "server's address `ipv6` is its `::1`, configured in the machine; every address of the /64 reaches it). " +
    "The firewall is enforced on the host, in front of the machine: an ordered list of up to " +
    `${MAX_FIREWALL_RULES} rules, each for IPv4, IPv6 or both; the first rule matching a new connection decides; ` +
    "inbound connections no rule accepts are dropped once the list holds any rule; outbound is open unless a " +
    "rule drops it. Answers to accepted connections always pass and a change never cuts an established " +
    "connection. A change is applied in one step (the host swaps the whole rule set atomically, never leaving " +
    "the machine unfiltered), usually within a second, before the request answers. Outbound mail (tcp 25) is " +
    "blocked on every server until the operator opens it (`smtp`). Reverse DNS: the IPv4 and the `::1` get a " +
    "generated name under the deployment's domain; the owner may set the PTR of those and of any address of " +
    "the /64 to a name that already resolves to it (forward-confirmed), and terminating the server gives the " +
    "generated names back. DNS being slow or down never holds up an order: a record waits `pending` with the " +
    `reason and is retried. Forward lookups give up after ${DEFAULTS.RDNS_LOOKUP_TIMEOUT_MS} ms (\`RDNS_LOOKUP_TIMEOUT_MS\`).`,
};

export const networkPaths: ZodOpenApiPathsObject = {
  "/servers/{id}/firewall": {
    get: authed("servers:read", {
      tags: [TAG],
      operationId: "getFirewall",
      summary: "A server's firewall",
      description:
        "The rules with their hit counts read from the host now, the defaults, the SMTP policy and whether the host applied the latest change.",
      requestParams: { path: serverIdParam },
      responses: {
        "200": { description: "The firewall.", content: jsonContent(FirewallSchema) },
        "404": serverNotFound,
      },
    }),
    put: authed("servers:network", {
      tags: [TAG],
      operationId: "setFirewall",
      summary: "Replace the firewall's rules",
      description:
        "Stores the whole ordered list and has the host apply it; the answer comes once it has (`state: " +
        "applied`) or after 5 s at most (`pending`: the server is busy with another operation, or the host " +
        "refused and it is retried, see `error`). Hit counts of unchanged rules carry on. Not counted against the " +
        "host-operation limit.",
      requestParams: { path: serverIdParam },
      requestBody: jsonRequest(SetFirewallBody),
      responses: {
        "200": { description: "The firewall after the change.", content: jsonContent(FirewallSchema) },
        "400": bodyErrors(
          "Bad body: a rule with ports for icmp or any, a network that is not one, sources and destinations of " +
            "different families, more than the limits; the message names the rule.",
          SetFirewallBody,
        ),
        "404": serverNotFound,
        "409": errorResponse(
          "`server_terminated`; `firewall_unavailable`: the server's host has no public network. Nothing changes.",
          ["server_terminated", "firewall_unavailable"],
        ),
        "413": responses.tooLarge,
        "415": responses.unsupportedMedia,
      },
    }),
  },
  "/servers/{id}/firewall/simulate": {
    post: authed("servers:read", {
      tags: [TAG],
      operationId: "simulateFirewall",
      summary: "Would this packet pass?",
      description:
        "Answers for the first packet of a new connection, from the stored rules as the host applies them: " +
        "accepted or dropped, and whether a rule (which), the default or the SMTP policy decided. Changes nothing.",
      requestParams: { path: serverIdParam },
      requestBody: jsonRequest(SimulationBody),
      responses: {
        "200": { description: "The verdict.", content: jsonContent(SimulationSchema) },
        "400": bodyErrors(
          "Bad body: no port for tcp or udp (or one for icmp), an address that is not one, a local address that is " +
            "not the server's, or a family the server has no address of.",
          SimulationBody,
        ),
        "404": serverNotFound,
      },
    }),
  },
  "/servers/{id}/rdns": {
    get: authed("servers:read", {
      tags: [TAG],
      operationId: "listPtrs",
      summary: "Reverse DNS of a server's addresses",
      requestParams: { path: serverIdParam },
      responses: {
        "200": { description: "The PTRs.", content: jsonContent(PtrListSchema) },
        "404": serverNotFound,
      },
    }),
  },
  "/servers/{id}/rdns/{address}": {
    get: authed("servers:read", {
      tags: [TAG],
      operationId: "getPtr",
      summary: "The PTR of one address",
      requestParams: { path: addressParams },
      responses: {
        "200": { description: "The PTR.", content: jsonContent(PtrSchema) },
        "400": badAddress,
        "404": addressNotFound,
      },
    }),
    put: authed("servers:network", {
      tags: [TAG],
      operationId: "setPtr",
      summary: "Set the PTR of one address",
      description:
        "The name must already resolve to the address (A for IPv4, AAAA for IPv6), or 422 says what it resolves " +
        "to. The answer comes after one attempt to write it to DNS: `applied`, or `pending` with the reason " +
        "(retried in the background). At most 100 named addresses per server.",
      requestParams: { path: addressParams },
      requestBody: jsonRequest(SetPtrBody),
      responses: {
        "200": { description: "The PTR.", content: jsonContent(PtrSchema) },
        "400": bodyErrors("Bad body, or the path's address is not an IP address.", SetPtrBody, [
          "invalid_address",
        ]),
        "404": addressNotFound,
        "409": errorResponse(
          "`rdns_unavailable`: no reverse DNS on this deployment; `ptr_limit_reached`: the server names 100 " +
            "addresses already. Nothing changes.",
          ["rdns_unavailable", "ptr_limit_reached"],
        ),
        "413": responses.tooLarge,
        "415": responses.unsupportedMedia,
        "422": {
          description:
            "`ptr_not_forward_confirmed`: the name does not resolve to the address. Codes: `ptr_not_forward_confirmed`.",
          content: jsonContent(z.union([PtrNotConfirmedSchema, ErrorSchema])),
        },
        "503": errorResponse("The name's forward lookup got no answer in time; nothing changed, retry.", [
          "forward_lookup_unavailable",
        ]),
      },
    }),
    delete: authed("servers:network", {
      tags: [TAG],
      operationId: "deletePtr",
      summary: "Reset the PTR of one address",
      description:
        "The IPv4 and the `::1` get their generated name back; any other address of the /64 loses its PTR.",
      requestParams: { path: addressParams },
      responses: {
        "200": { description: "The PTR as it is to be.", content: jsonContent(PtrSchema) },
        "400": badAddress,
        "404": addressNotFound,
        "409": unmanaged,
      },
    }),
  },
};
