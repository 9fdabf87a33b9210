/** The reinstall and root-password operations, spread into the document's paths. */
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { ReinstallServerBody, RootPasswordBody } from "@/lib/api/schemas/server-machine";
import { CredentialsSchema, ServerCreatedSchema } from "@/lib/api/schemas/servers";
import { hostOperationConflict, serverIdParam, serverNotFound } from "./servers";
import {
  authed,
  bodyErrors,
  errorResponse,
  hostOperationLimited,
  idempotencyHeader,
  jsonContent,
  jsonRequest,
  retryAfter,
} from "./shared";

export const serverMachinePaths: ZodOpenApiPathsObject = {
  "/servers/{id}/reinstall": {
    post: authed("servers:rebuild", {
      tags: ["Servers"],
      operationId: "reinstallServer",
      summary: "Reinstall: wipe the disk and install an OS afresh",
      description:
        "`confirm` must be the server's hostname. The server turns `provisioning` (`status_reason` says it is " +
        "reinstalling) and a job replaces its disk with a fresh one of `os` (default: the current OS), with a new " +
        "root password (`root_password`, or generated and returned once here), root's SSH keys (`ssh_keys`, " +
        "default: the current ones) and a new pinned SSH host key; it is `active` again once SSH answers. Id, " +
        "address, plan and paid period stay; nothing is charged. Unless `snapshot_first` is `false`, the machine " +
        "is first shut down and its disk kept as a snapshot (kind `reinstall`): restore it to undo the reinstall. " +
        "A reinstall that fails after its retries leaves " +
        "the server `active` and stopped, with `status_reason` saying why. The new password is also at " +
        "/credentials. Accepts an Idempotency-Key (a replay omits `root_password`).",
      requestParams: { path: serverIdParam, header: idempotencyHeader },
      requestBody: jsonRequest(ReinstallServerBody),
      responses: {
        "202": {
          description: "The server, `provisioning` while it is reinstalled.",
          content: jsonContent(ServerCreatedSchema),
        },
        "400": bodyErrors("Bad body, or `confirm` is not the hostname.", ReinstallServerBody, [
          "confirmation_mismatch",
          "invalid_idempotency_key",
        ]),
        "404": serverNotFound,
        "409": hostOperationConflict(
          "`server_not_active`: only an active server can be reinstalled; `os_unavailable`: no image for the OS " +
            "here; `server_in_rescue`: leave rescue mode first; `snapshot_limit_reached`: the server keeps as " +
            "many snapshots as it may (delete one, or send `snapshot_first: false`); `out_of_capacity`: its host " +
            "has no room for the snapshot; `idempotency_key_in_use`: the key's first request is still running. " +
            "Nothing changes.",
          [
            "server_not_active",
            "os_unavailable",
            "server_in_rescue",
            "snapshot_limit_reached",
            "out_of_capacity",
            "idempotency_key_in_use",
          ],
        ),
        "429": hostOperationLimited,
        "422": errorResponse("The Idempotency-Key was used with a different body.", [
          "idempotency_key_reused",
        ]),
      },
    }),
  },
  "/servers/{id}/password": {
    post: authed("servers:rebuild", {
      tags: ["Servers"],
      operationId: "setServerRootPassword",
      summary: "Set a new root password on the running machine",
      description:
        "Sets root's password inside the running machine through its QEMU guest agent (as a SHA-512 crypt hash), " +
        "then stores it for /credentials. `root_password` is generated when omitted. The answer is the new " +
        "login, as /credentials gives it, with `Cache-Control: no-store`. A stopped machine, or one whose image " +
        "has no guest agent, is refused with 409 `guest_agent_unavailable` and keeps its password. The password " +
        "counts as set only when the host confirms it: a change the host confirmed is always stored and returned, " +
        "and one it did not confirm (cut off, an unexpected host error) is 502 `password_unconfirmed` with " +
        "/credentials unchanged. It is recorded as the server's host operation while it runs.",
      requestParams: { path: serverIdParam },
      requestBody: jsonRequest(RootPasswordBody, { required: false }),
      responses: {
        "200": { description: "The new root login.", content: jsonContent(CredentialsSchema) },
        "400": bodyErrors("Bad body.", RootPasswordBody),
        "404": serverNotFound,
        "409": hostOperationConflict(
          "`server_not_active`: the server is not active; `server_in_rescue`: it runs the rescue system; " +
            "`guest_agent_unavailable`: the machine is stopped or its guest agent does not answer. The password " +
            "is unchanged.",
          ["server_not_active", "server_in_rescue", "guest_agent_unavailable"],
        ),
        "429": hostOperationLimited,
        "502": errorResponse(
          "The host did not confirm the change: the machine may have the old or the new password. /credentials " +
            "keeps the old one; set a password again (a confirmed change makes both agree).",
          ["password_unconfirmed"],
        ),
        "503": errorResponse(
          "`host_unreachable`: the server's host cannot be reached, nothing was changed (with `Retry-After`); " +
            "`service_unavailable`: the database is briefly unreachable.",
          ["host_unreachable", "service_unavailable"],
          { "Retry-After": retryAfter["Retry-After"] },
        ),
      },
    }),
  },
};
