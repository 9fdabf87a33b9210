import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";
import { CreateServerRequestSchema } from "./servers";

const order = CreateServerRequestSchema.shape;

export const ReinstallServerRequestSchema = z
  .strictObject({
    confirm: z.string().max(253).meta({
      description: "The server's hostname, typed out: the disk is wiped, so the request names what it wipes.",
      example: "fox-nl-k3m9qa",
    }),
    os: order.os.optional().meta({
      description: "Operating-system id from the catalog; default: the server's current OS.",
      example: "debian-12",
    }),
    root_password: order.root_password,
    ssh_keys: order.ssh_keys.meta({
      description:
        "OpenSSH public keys installed for root. Omitted: the server's current keys are installed again; `[]`: none.",
    }),
    user_data: order.user_data.meta({
      description:
        "cloud-init user data for the new system, as at order (a `#cloud-config` document or a `#!` script, at " +
        "most 32 KiB), merged with the service's seed whose part wins. Omitted: none (the order's is not reused).",
    }),
    snapshot_first: z
      .boolean()
      .default(true)
      .meta({
        description:
          "Default `true`: the machine is shut down and its disk kept as a snapshot (kind `reinstall`) before it " +
          "is wiped; restore it to undo the reinstall. It takes one of the server's snapshot places: at the " +
          "limit the reinstall is refused (`snapshot_limit_reached`) unless this is `false`.",
      }),
  })
  .meta({ id: "ReinstallServerRequest" });

export const ReinstallServerBody = requestBody(ReinstallServerRequestSchema, {
  confirm: "invalid_confirm",
  os: "invalid_os",
  root_password: "invalid_root_password",
  ssh_keys: "invalid_ssh_key",
  user_data: "invalid_user_data",
  snapshot_first: "invalid_snapshot_first",
});

export const RootPasswordRequestSchema = z
  .strictObject({
    root_password: order.root_password.meta({
      description: "10 to 128 printable ASCII characters; generated (24 characters) when omitted.",
    }),
  })
  .meta({ id: "RootPasswordRequest" });

export const RootPasswordBody = requestBody(RootPasswordRequestSchema, {
  root_password: "invalid_root_password",
});

export const ServerBusySchema = z
  .object({
    error: z.literal("server_busy"),
    message: z.string().meta({
      example:
        "This server is busy with a stop (since 2026-11-24T10:00:00.000Z); try again once it has finished.",
    }),
    operation: z
      .enum([
        "start",
        "stop",
        "reboot",
        "password",
        "reinstall",
        "provision",
        "destroy",
        "snapshot",
        "restore",
        "delete_snapshot",
        "rescue",
        "leave_rescue",
        "revive",
        "resize",
      ])
      .meta({
        description:
          "What the server is doing: a power action, a root password change, a reinstall, a snapshot, a restore, ...",
      }),
    since: z.iso.datetime().meta({ description: "When that operation was asked for." }),
  })
  .meta({ id: "ServerBusy" });

export type ReinstallServerRequest = z.infer<typeof ReinstallServerRequestSchema>;
export type RootPasswordRequest = z.infer<typeof RootPasswordRequestSchema>;
