/** The OpenAPI operations of snapshots and rescue mode, spread into the document's paths. */
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { ServerSchema } from "@/lib/api/schemas/servers";
import {
  CreateSnapshotBody,
  RescueBody,
  RescueStartedSchema,
  RestoreSnapshotBody,
  SetSnapshotScheduleBody,
  SnapshotListSchema,
  SnapshotScheduleStateSchema,
  SnapshotSchema,
} from "@/lib/api/schemas/snapshots";
import { hostOperationConflict, serverIdParam, serverNotFound } from "./servers";
import {
  authed,
  bodyErrors,
  DEFAULTS,
  errorResponse,
  hostOperationLimited,
  idempotencyHeader,
  jsonContent,
  jsonRequest,
  responses,
} from "./shared";

const snapshotParams = serverIdParam.extend({
  snapshotId: z.string().regex(/^\d+$/).meta({ description: "The snapshot's integer id." }),
});
const snapshotNotFound = errorResponse("No server with that id on this account, or no such snapshot of it.", [
  "not_found",
]);

export const snapshotsTag = {
  name: "Snapshots and rescue",
  description:
    "A snapshot is a self-contained copy of a server's disk, kept on its host (a volume of the host's storage " +
    `pool) for as long as the server lives. Each server keeps up to ${DEFAULTS.SNAPSHOTS_PER_SERVER} ` +
    "(`SNAPSHOTS_PER_SERVER`; the catalog's `snapshots.per_server`) at no charge: they are part of the plan's " +
    "price, like its disk. A snapshot counts against its host's disk (a server's disk size while it is taken, " +
    "its measured size after), so a host without room refuses one with 409 `out_of_capacity`. A running " +
    "machine is copied without pausing it: its filesystems are frozen through the QEMU guest agent for the " +
    "instant the copy ends where the agent answers (`consistency: frozen`), otherwise the copy is " +
    "`crash_consistent`; a stopped one is copied at rest (`powered_off`). A reinstall takes one first unless " +
    "told not to. A server terminated because its period lapsed keeps its last disk (kind `expiry`) and its " +
    `snapshots for ${DEFAULTS.EXPIRED_SERVER_RETENTION_DAYS} days (\`EXPIRED_SERVER_RETENTION_DAYS\`): renewing ` +
    "it in that time brings it back on that disk, on the same address where still free; then they are " +
    "deleted. A server the owner terminates loses its snapshots with it. Rescue mode boots a small rescue " +
    "system with the server's disk attached but not mounted. All of these are host operations: one at a time " +
    "per server, within the account's host-operation limit.",
};

export const snapshotsPaths: ZodOpenApiPathsObject = {
  "/servers/{id}/snapshots": {
    get: authed("servers:read", {
      tags: ["Snapshots and rescue"],
      operationId: "listSnapshots",
      summary: "List a server's snapshots",
      description: "Newest first, failed ones included (delete them), with the server's limit.",
      requestParams: { path: serverIdParam },
      responses: {
        "200": { description: "The snapshots.", content: jsonContent(SnapshotListSchema) },
        "404": serverNotFound,
      },
    }),
    post: authed("servers:snapshots", {
      tags: ["Snapshots and rescue"],
      operationId: "takeSnapshot",
      summary: "Take a snapshot",
      description:
        "Of an active server, running or stopped (in rescue mode too). Answers 202 at once with the snapshot " +
        "`creating`; poll it until `available` (or `failed`, with `failure_reason`). The machine keeps running " +
        "meanwhile. Free, up to the server's limit. Accepts an Idempotency-Key.",
      requestParams: { path: serverIdParam, header: idempotencyHeader },
      requestBody: jsonRequest(CreateSnapshotBody, { required: false }),
      responses: {
        "202": { description: "The snapshot, `creating`.", content: jsonContent(SnapshotSchema) },
        "400": bodyErrors("Bad body.", CreateSnapshotBody, ["invalid_idempotency_key"]),
        "404": serverNotFound,
        "409": hostOperationConflict(
          "`server_not_active`: the server is not active; `snapshot_limit_reached`: it keeps as many as it may " +
            "(delete one); `out_of_capacity`: its host has no room for a copy of its disk; " +
            "`idempotency_key_in_use`: the key's first request is still running. Nothing is queued.",
          ["server_not_active", "snapshot_limit_reached", "out_of_capacity", "idempotency_key_in_use"],
        ),
        "413": responses.tooLarge,
        "415": responses.unsupportedMedia,
        "422": responses.idempotencyKeyReused,
        "429": hostOperationLimited,
      },
    }),
  },
  "/servers/{id}/snapshots/schedule": {
    get: authed("servers:read", {
      tags: ["Snapshots and rescue"],
      operationId: "getSnapshotSchedule",
      summary: "The server's automatic snapshots",
      requestParams: { path: serverIdParam },
      responses: {
        "200": { description: "The schedule, or null.", content: jsonContent(SnapshotScheduleStateSchema) },
        "404": serverNotFound,
      },
    }),
    put: authed("servers:snapshots", {
      tags: ["Snapshots and rescue"],
      operationId: "setSnapshotSchedule",
      summary: "Take snapshots automatically, daily or weekly",
      description:
        "Sets (or replaces) the server's schedule: a snapshot (kind `automatic`) at `hour`:00 UTC every day, or " +
        "every week on `weekday`. Each run that finds the server keeping as many snapshots as it may deletes its " +
        "oldest automatic one first; manual snapshots (and those taken before a reinstall or resize) are never " +
        "deleted, and when they alone fill the limit the run fails. A run that fails is listed as a `failed` " +
        "automatic snapshot with its reason and sends `snapshot.failed`. A suspended server's runs are skipped; a " +
        "server busy with another host operation is tried again every 5 minutes for an hour. Free, like every " +
        "snapshot.",
      requestParams: { path: serverIdParam },
      requestBody: jsonRequest(SetSnapshotScheduleBody),
      responses: {
        "200": {
          description: "The schedule, with its next run.",
          content: jsonContent(SnapshotScheduleStateSchema),
        },
        "400": bodyErrors(
          "Bad body (a weekly schedule needs its weekday, a daily one takes none).",
          SetSnapshotScheduleBody,
        ),
        "404": serverNotFound,
        "409": errorResponse("The server is terminated.", ["server_terminated"]),
      },
    }),
    delete: authed("servers:snapshots", {
      tags: ["Snapshots and rescue"],
      operationId: "clearSnapshotSchedule",
      summary: "Stop taking snapshots automatically",
      description: "The snapshots already taken stay.",
      requestParams: { path: serverIdParam },
      responses: {
        "200": { description: "`schedule: null`.", content: jsonContent(SnapshotScheduleStateSchema) },
        "404": serverNotFound,
      },
    }),
  },
  "/servers/{id}/snapshots/{snapshotId}": {
    get: authed("servers:read", {
      tags: ["Snapshots and rescue"],
      operationId: "getSnapshot",
      summary: "A snapshot",
      requestParams: { path: snapshotParams },
      responses: {
        "200": { description: "The snapshot.", content: jsonContent(SnapshotSchema) },
        "404": snapshotNotFound,
      },
    }),
    delete: authed("servers:snapshots", {
      tags: ["Snapshots and rescue"],
      operationId: "deleteSnapshot",
      summary: "Delete a snapshot",
      description:
        "Answers 202 with the snapshot `deleting`; it leaves the list once its volume is removed and its space " +
        "is free. Deleting a terminated server's last disk (kind `expiry`) ends its retention: the server can " +
        "no longer be renewed. Deleting one already `deleting` answers the same. Refused while the operator " +
        "holds the server (`server_held`): its snapshots are kept until the hold is lifted.",
      requestParams: { path: snapshotParams },
      responses: {
        "202": { description: "The snapshot, `deleting`.", content: jsonContent(SnapshotSchema) },
        "404": snapshotNotFound,
        "409": hostOperationConflict(
          "A snapshot is deleted once the server's running operation is done. `server_held`: the operator holds " +
            "the server (the message gives the reason); nothing changed.",
          ["server_held"],
        ),
        "429": hostOperationLimited,
      },
    }),
  },
  "/servers/{id}/snapshots/{snapshotId}/restore": {
    post: authed("servers:snapshots", {
      tags: ["Snapshots and rescue"],
      operationId: "restoreSnapshot",
      summary: "Restore a snapshot",
      description:
        "Returns the disk to the snapshot: everything written since is lost, so `confirm` must be the server's " +
        "hostname. The server turns `provisioning` (`status_reason` says which snapshot), the job shuts the " +
        "machine down, replaces its disk with a copy of the snapshot and starts it; it is `active` again once " +
        "SSH answers. Id, address, port, host key, root password and paid period stay; `os` becomes the " +
        "snapshot's. The snapshot stays, to be restored again. A restore that fails after its retries leaves " +
        "the server `active` and stopped, with `status_reason` saying why. Accepts an Idempotency-Key.",
      requestParams: { path: snapshotParams, header: idempotencyHeader },
      requestBody: jsonRequest(RestoreSnapshotBody),
      responses: {
        "202": {
          description: "The server, `provisioning` while it is restored.",
          content: jsonContent(ServerSchema),
        },
        "400": bodyErrors("Bad body, or `confirm` is not the hostname.", RestoreSnapshotBody, [
          "confirmation_mismatch",
          "invalid_idempotency_key",
        ]),
        "404": snapshotNotFound,
        "409": hostOperationConflict(
          "`server_not_active`: the server is not active; `server_in_rescue`: leave rescue mode first; " +
            "`snapshot_not_available`: the snapshot is still being taken, failed, or is being deleted; " +
            "`idempotency_key_in_use`. Nothing changes.",
          ["server_not_active", "server_in_rescue", "snapshot_not_available", "idempotency_key_in_use"],
        ),
        "422": responses.idempotencyKeyReused,
        "429": hostOperationLimited,
      },
    }),
  },
  "/servers/{id}/rescue": {
    post: authed("servers:snapshots", {
      tags: ["Snapshots and rescue"],
      operationId: "enterRescue",
      summary: "Boot the rescue system",
      description:
        "Shuts the machine down (forced off after the stop timeout) and boots a small rescue system (busybox " +
        "and dropbear on a Linux kernel, in memory) with the server's disk attached as `/dev/vda` but not " +
        "mounted (`mount /dev/vda /mnt`), on the server's usual address and port. root logs in with a new " +
        "temporary password (`rescue_password`, returned once here and by /credentials while in rescue mode) or " +
        "the server's SSH keys; the rescue system has its own SSH host key (`rescue.ssh_host_key_fingerprint` " +
        "once it runs) and its console is the server's serial console. Answers 202 with `rescue.state` " +
        "`entering`; it turns `active` once the rescue system runs. Power actions restart the rescue system; " +
        "reinstalls, restores and password changes wait until rescue mode is left. Accepts an Idempotency-Key " +
        "(a replay omits the password).",
      requestParams: { path: serverIdParam, header: idempotencyHeader },
      requestBody: jsonRequest(RescueBody, { required: false }),
      responses: {
        "202": {
          description: "The server, entering rescue mode.",
          content: jsonContent(RescueStartedSchema),
        },
        "400": bodyErrors("Bad body.", RescueBody, ["invalid_idempotency_key"]),
        "404": serverNotFound,
        "409": hostOperationConflict(
          "`server_not_active`: the server is not active; `server_in_rescue`: it is in rescue mode already; " +
            "`rescue_unavailable`: this deployment has no rescue system installed; `idempotency_key_in_use`.",
          ["server_not_active", "server_in_rescue", "rescue_unavailable", "idempotency_key_in_use"],
        ),
        "422": responses.idempotencyKeyReused,
        "429": hostOperationLimited,
      },
    }),
    delete: authed("servers:snapshots", {
      tags: ["Snapshots and rescue"],
      operationId: "leaveRescue",
      summary: "Leave rescue mode",
      description:
        "Shuts the rescue system down (it unmounts what was mounted) and boots the server's own disk: 202 with " +
        "`rescue.state` `leaving`; `rescue` is null once the server's system runs. The temporary password stops " +
        "working. Only an active server leaves rescue mode on request: one the operator suspends, or whose " +
        "period lapses, is taken out of it by that, stopped (it boots its own system when next started).",
      requestParams: { path: serverIdParam },
      responses: {
        "202": { description: "The server, leaving rescue mode.", content: jsonContent(ServerSchema) },
        "404": serverNotFound,
        "409": hostOperationConflict(
          "`not_in_rescue`: the server is not in rescue mode; `server_not_active`: it is suspended (by the " +
            "operator, the message says why, or for its lapsed period) or being built.",
          ["not_in_rescue", "server_not_active"],
        ),
        "429": hostOperationLimited,
      },
    }),
  },
};
