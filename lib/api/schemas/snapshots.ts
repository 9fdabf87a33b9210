import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";
import { SNAPSHOT_KINDS } from "@/lib/db/types";
import { WEEKDAYS } from "@/lib/servers/snapshots/schedule-rules";
import { timestamp } from "./common";
import { ServerSchema } from "./servers";

export const SnapshotSchema = z
  .object({
    id: z.int().meta({ example: 42 }),
    server_id: z.int().meta({ example: 311 }),
    name: z.string().meta({ example: "Before the upgrade" }),
    kind: z.enum(SNAPSHOT_KINDS).meta({
      description:
        "`manual`: asked for; `reinstall`: taken before a reinstall; `resize`: taken before a resize grew the " +
        "disk; `automatic`: taken by the server's schedule (the oldest automatic one is deleted to make room when " +
        "the limit is reached; manual ones never are); `expiry`: the last disk of a server terminated because its " +
        "period lapsed, kept until `kept_until` (renew the server to bring it back).",
    }),
    state: z.enum(["creating", "available", "failed", "deleting"]).meta({
      description:
        "`creating` while the disk is copied; `available` to restore; `failed` (see `failure_reason`; delete " +
        "it); `deleting` until its volume is removed.",
    }),
    os: z.string().meta({ description: "The system on the disk: a restore gives the server this OS again." }),
    size_bytes: z.int().nullable().meta({
      description: "Space it takes on the host, measured once taken; null before, and for simulated servers.",
      example: 1_073_938_432,
    }),
    consistency: z
      .enum(["powered_off", "frozen", "crash_consistent"])
      .nullable()
      .meta({
        description:
          "How consistent the copy is: `powered_off` (taken while the machine was off), `frozen` (running; the " +
          "guest agent froze its filesystems for the moment of the copy), `crash_consistent` (running without " +
          "an answering guest agent: what a power cut would have left, which journaling filesystems recover). " +
          "Null until taken.",
      }),
    failure_reason: z.string().nullable(),
    created_at: timestamp(),
    completed_at: timestamp().nullable().meta({ description: "When the copy was done." }),
    kept_until: timestamp()
      .nullable()
      .meta({
        description:
          "For the snapshots of a server terminated because its period lapsed: when they are deleted unless the " +
          "server is renewed first. Null while the server lives (its snapshots last as long as it does).",
      }),
  })
  .meta({ id: "Snapshot" });

export const SnapshotScheduleSchema = z
  .object({
    frequency: z.enum(["daily", "weekly"]),
    hour: z.int().min(0).max(23).meta({ description: "The hour of the day, UTC.", example: 3 }),
    weekday: z.enum(WEEKDAYS).nullable().meta({ description: "For a weekly schedule, its day; else null." }),
    next_run_at: timestamp().meta({ description: "When the next automatic snapshot is taken." }),
  })
  .meta({
    id: "SnapshotSchedule",
    description:
      "Automatic snapshots (kind `automatic`): one at each run, of the running or stopped machine. When the " +
      "server keeps as many snapshots as it may, the oldest automatic one is deleted to make room; manual and " +
      "other snapshots never are, and a limit they fill alone makes the run fail (`snapshot.failed`). A server " +
      "busy with another host operation is tried again for up to an hour; a suspended one is skipped.",
  });

export const SnapshotScheduleStateSchema = z
  .object({
    schedule: SnapshotScheduleSchema.nullable().meta({ description: "Null: no automatic snapshots." }),
  })
  .meta({ id: "SnapshotScheduleState" });

export const SetSnapshotScheduleRequestSchema = z
  .strictObject({
    frequency: z.enum(["daily", "weekly"]),
    hour: z.int().min(0).max(23).meta({ description: "0 to 23, UTC.", example: 3 }),
    weekday: z.enum(WEEKDAYS).optional().meta({
      description: "Weekly schedules only (and required there): the day of the week.",
      example: "sunday",
    }),
  })
  .meta({ id: "SetSnapshotScheduleRequest" });

export const SetSnapshotScheduleBody = requestBody(SetSnapshotScheduleRequestSchema, {
  frequency: "invalid_frequency",
  hour: "invalid_hour",
  weekday: "invalid_weekday",
});

export const SnapshotListSchema = z
  .object({
    snapshots: z.array(SnapshotSchema).meta({ description: "Newest first." }),
    limit: z
      .int()
      .meta({ description: "How many snapshots (not counting a last disk) the server may keep." }),
    schedule: SnapshotScheduleSchema.nullable().meta({
      description: "The server's automatic snapshots; null when it has none.",
    }),
  })
  .meta({ id: "SnapshotList" });

export const CreateSnapshotRequestSchema = z
  .strictObject({
    name: z.string().max(64).optional().meta({
      description: "1 to 64 printable ASCII characters; default `Snapshot of <date> UTC`.",
      example: "Before the upgrade",
    }),
  })
  .meta({ id: "CreateSnapshotRequest" });

export const CreateSnapshotBody = requestBody(CreateSnapshotRequestSchema, { name: "invalid_snapshot_name" });

export const RestoreSnapshotRequestSchema = z
  .strictObject({
    confirm: z.string().max(253).meta({
      description:
        "The server's hostname, typed out: everything written to the disk since the snapshot is lost.",
      example: "fox-nl-k3m9qa",
    }),
  })
  .meta({ id: "RestoreSnapshotRequest" });

export const RestoreSnapshotBody = requestBody(RestoreSnapshotRequestSchema, { confirm: "invalid_confirm" });

export const RescueStartedSchema = ServerSchema.extend({
  rescue_password: z.string().meta({
    description:
      "The rescue system's temporary root password, shown here once and by /credentials while it runs.",
  }),
}).meta({ id: "RescueStarted" });

export type Snapshot = z.infer<typeof SnapshotSchema>;
export type SnapshotSchedule = z.infer<typeof SnapshotScheduleSchema>;
export type SetSnapshotScheduleRequest = z.infer<typeof SetSnapshotScheduleRequestSchema>;
export type CreateSnapshotRequest = z.infer<typeof CreateSnapshotRequestSchema>;
export type RestoreSnapshotRequest = z.infer<typeof RestoreSnapshotRequestSchema>;

/** Rescue mode takes no options: the body is empty or `{}`. */
export const RescueRequestSchema = z.strictObject({}).meta({ id: "RescueRequest" });
export const RescueBody = requestBody(RescueRequestSchema);
