import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";
import { CYCLES, LOCATIONS, OS_IMAGES, PLANS } from "@/lib/catalog/catalog";
import { SERVER_STATUSES } from "@/lib/db/types";
import { nextCursorField, timestamp } from "./common";
import { TrafficSchema } from "./metrics";
import { X402RequirementSchema } from "./topups";

export const ServerSchema = z
  .object({
    id: z.int().meta({ example: 311 }),
    plan: z.string().meta({ description: "Plan id.", example: "fox" }),
    location: z.string().meta({ description: "Location id.", example: "nl" }),
    os: z.string().meta({ description: "Operating-system id.", example: "debian-13" }),
    hostname: z.string().meta({ example: "fox-nl-k3m9qa" }),
    cycle: z.enum(CYCLES).meta({ description: "Billing cycle." }),
    price_usd: z.number().meta({ description: "Price of one cycle, charged at order and at each renewal." }),
    status: z.enum(SERVER_STATUSES),
    ip: z
      .string()
      .nullable()
      .meta({ description: "Public IPv4; null until provisioned and after termination." }),
    ipv6: z
      .string()
      .nullable()
      .meta({
        description:
          "The server's IPv6 address (`::1` of its /64, configured in the machine); null where its host hands out " +
          "no IPv6, until provisioned, and after termination.",
        example: "2001:db8:1:105::1",
      }),
    ipv6_prefix: z
      .string()
      .nullable()
      .meta({
        description:
          "The /64 routed to the server: every address in it reaches the machine. It stays the server's through " +
          "reinstalls, restores, rescue and a lapse with its disk kept, and is never handed out again while the " +
          "server or its kept disk lives.",
        example: "2001:db8:1:105::/64",
      }),
    ssh_port: z.int().nullable().meta({
      description: "SSH port at `ip`: 22 unless the host forwards a port; null without an address.",
    }),
    ssh_host_key_fingerprint: z
      .string()
      .nullable()
      .meta({
        description:
          "SHA256 fingerprint of the SSH host key generated for this server and pinned at build; compare it with " +
          "what your SSH client shows on first connect. Null for simulated servers.",
        example: "SHA256:hWWRWgdE06n+zWqnQl2LtswoRULIP1dICyHq3fet6eU",
      }),
    username: z.literal("root").meta({ description: "Login user." }),
    created_at: timestamp(),
    expires_at: timestamp().meta({ description: "End of the paid period." }),
    auto_renew: z
      .boolean()
      .meta({ description: "Renew from the balance at expiry when it covers the price." }),
    power_state: z
      .enum(["running", "stopped"])
      .nullable()
      .meta({ description: "null while provisioning and once terminated." }),
    suspended_at: timestamp().nullable(),
    terminates_at: timestamp()
      .nullable()
      .meta({ description: "For a suspended server: when it is terminated unless renewed first." }),
    terminated_at: timestamp().nullable(),
    retained_until: timestamp()
      .nullable()
      .meta({
        description:
          "For a server terminated because its period lapsed: its last disk is kept until then, and renewing it " +
          "before brings it back on that disk (on the same address where still free). Null otherwise.",
      }),
    rescue: z
      .object({
        state: z.enum(["entering", "active", "leaving"]).meta({
          description:
            "`entering` until the rescue system runs, `leaving` until the server's own system runs again.",
        }),
        since: timestamp(),
        ssh_host_key_fingerprint: z.string().nullable().meta({
          description:
            "The rescue system's own SSH host key (not the server's); null until it runs, and when simulated.",
        }),
      })
      .nullable()
      .meta({
        description:
          "Rescue mode: the server boots a small rescue system with its disk attached (`/dev/vda`, not mounted), " +
          "root's password is `rescue_password` of /credentials. Null when the server runs its own system.",
      }),
    status_reason: z
      .string()
      .nullable()
      .meta({
        description:
          "Why the server is in its state when that is unusual: a build that failed (refunded), a machine that went " +
          "missing, or a suspension by the operator (`Suspended by the operator: ` and the reason).",
      }),
    hold: z
      .object({
        reason: z.string().meta({ description: "The operator's words." }),
        since: timestamp(),
        period_paused: z.boolean().meta({
          description:
            "True: the paid period waits (`terminates_at` is null; the time held is added to `expires_at` when " +
            "lifted, and a renewal meanwhile extends from `expires_at`, never from now).",
        }),
      })
      .nullable()
      .meta({
        description:
          "The operator's suspension of this server (or of its account), null when there is none. While it lasts " +
          "the server is `suspended`: power, the console, reinstalls, restores, rescue mode and new snapshots are " +
          "refused (`server_not_active`), and so are terminating it and deleting its snapshots (`server_held`); " +
          "renewing it, automatic renewal and reading it still work.",
      }),
    memory_mb: z
      .int()
      .nullable()
      .meta({ description: "Memory the server gets (the plan's, unless this deployment caps it)." }),
    vcpus: z.int().nullable(),
    disk_gb: z
      .int()
      .nullable()
      .meta({ description: "Disk size the server gets (the plan's, unless capped)." }),
    ssh_keys: z.int().meta({ description: "How many SSH public keys were installed for root at order." }),
    provisioner: z.enum(["simulated", "libvirt"]).meta({
      description: "`simulated`: demo mode, no machine exists; `libvirt`: a real virtual machine.",
    }),
    traffic: TrafficSchema.nullable().meta({
      description: "This period's traffic against the plan's allowance; null once terminated.",
    }),
    user_data: z
      .object({
        sha256: z.string().meta({
          description: "SHA-256 (hex) of the user data as sent: compare it with `sha256sum` of your file.",
          example: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        }),
        size_bytes: z.int().meta({ example: 412 }),
      })
      .nullable()
      .meta({
        description:
          "The cloud-init user data given at the order or the last reinstall, as its hash and size only: its text " +
          "is never shown again. Null when none was given.",
      }),
  })
  .meta({
    id: "Server",
    description:
      "A server. `provisioning` -> `active` when the provisioner has built it and assigned its IPv4; `active` -> " +
      "`suspended` at `expires_at` when not renewed (stopped, data kept); `suspended` -> `active` on renewal; " +
      "`suspended` -> `terminated` at `terminates_at` (expiry + the grace period), its last disk kept until " +
      "`retained_until`: renewing before then brings it back (`provisioning` -> `active`); any state -> " +
      "`terminated` when the owner terminates it (no refund, nothing kept). Otherwise terminated is final. A build that fails after its retries ends " +
      "`terminated` with the charge refunded and `status_reason` saying why. The operator may suspend it for abuse " +
      "(`suspended`, `status_reason` says why; its period waits, so `terminates_at` is null) and lift that, which " +
      "gives it back as it was. `power_state` is what the host reports.",
  });

export const ServerCreatedSchema = ServerSchema.extend({
  root_password: z.string().optional().meta({
    description:
      "The generated root password: present only when none was given. Shown here and by /credentials.",
  }),
}).meta({ id: "ServerCreated" });

/** Servers per page of `GET /servers` when the client names no `limit`. */
export const SERVER_PAGE_DEFAULT = 100;

export const ServerListSchema = z
  .object({
    servers: z.array(ServerSchema).meta({ description: "Newest first, terminated ones included." }),
    next_cursor: nextCursorField(),
  })
  .meta({ id: "ServerList" });

/** The largest cloud-init user data taken, in bytes of UTF-8. */
export const USER_DATA_MAX_BYTES = 32 * 1024;

const ids = <T extends { id: string }>(items: readonly T[]) =>
  items.map((item) => item.id) as [string, ...string[]];

export const CreateServerRequestSchema = z
  .strictObject({
    plan: z.enum(ids(PLANS)).meta({ description: "Plan id from the catalog.", example: "fox" }),
    location: z.enum(ids(LOCATIONS)).meta({ description: "Location id from the catalog.", example: "nl" }),
    os: z
      .enum(ids(OS_IMAGES))
      .meta({ description: "Operating-system id from the catalog.", example: "debian-13" }),
    cycle: z
      .enum(CYCLES)
      .default("monthly")
      .meta({ description: "Default `monthly`; `annual` costs 10 months." }),
    hostname: z
      .string()
      .max(253)
      .optional()
      .meta({ description: "RFC 1123 host name; default `<plan>-<location>-<6 random characters>`." }),
    root_password: z
      .string()
      .min(10)
      .max(128)
      .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces")
      .optional()
      .meta({ description: "10 to 128 printable ASCII characters; generated (24 characters) when omitted." }),
    auto_renew: z.boolean().default(false).meta({
      description:
        "Renew from the balance at each expiry. Default `false`: at `expires_at` the server is suspended, and terminated after the grace period unless renewed.",
    }),
    ssh_keys: z
      .array(z.string().max(16_384))
      .max(10)
      .optional()
      .meta({
        description:
          "OpenSSH public keys (ssh-ed25519, ecdsa-sha2-*, ssh-rsa of 2048+ bits) installed for root; a password is generated all the same.",
        example: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBlo me@laptop"],
      }),
    user_data: z
      .string()
      .max(USER_DATA_MAX_BYTES)
      .optional()
      .meta({
        description:
          "cloud-init user data run at the first boot: a `#cloud-config` document or a script starting with `#!`, " +
          "at most 32 KiB (32768 bytes of UTF-8). It is merged with the service's own seed, whose part always " +
          "wins: root's password and SSH keys, the pinned host key, sshd's settings, the hostname and the network " +
          "stay as this API says (the owner's `write_files`, `bootcmd` and `users` are joined with the service's, " +
          "without entries for root or for a file the service writes). A script runs after the service's part. " +
          "Never shown again: the server shows its SHA-256 and size.",
        example: "#cloud-config\npackages: [nginx]\nwrite_files:\n  - path: /etc/motd\n    content: Hello\n",
      }),
  })
  .meta({ id: "CreateServerRequest" });

export const CreateServerBody = requestBody(CreateServerRequestSchema, {
  plan: "invalid_plan",
  location: "invalid_location",
  os: "invalid_os",
  cycle: "invalid_cycle",
  hostname: "invalid_hostname",
  root_password: "invalid_root_password",
  auto_renew: "invalid_auto_renew",
  ssh_keys: "invalid_ssh_key",
  user_data: "invalid_user_data",
});

export const UpdateServerRequestSchema = z
  .strictObject({ auto_renew: z.boolean().meta({ description: "Turn automatic renewal on or off." }) })
  .meta({ id: "UpdateServerRequest" });

export const UpdateServerBody = requestBody(UpdateServerRequestSchema, { auto_renew: "invalid_auto_renew" });

export const ServerActionRequestSchema = z
  .strictObject({ action: z.enum(["start", "stop", "reboot"]) })
  .meta({ id: "ServerActionRequest" });

export const ServerActionBody = requestBody(ServerActionRequestSchema, { action: "invalid_action" });

export const CredentialsSchema = z
  .object({
    username: z.literal("root"),
    password: z.string(),
    rescue_password: z.string().nullable().meta({
      description: "In rescue mode, root's temporary password of the rescue system; null otherwise.",
    }),
  })
  .meta({ id: "ServerCredentials", description: "Root login. Sent with `Cache-Control: no-store`." });

export const InsufficientBalanceSchema = z
  .object({
    error: z.literal("insufficient_balance"),
    message: z.string().meta({ example: "Top up your balance before ordering: 4.50 USD more is needed." }),
    price: z.number().meta({ description: "USD.", example: 6.5 }),
    balance: z.number().meta({ description: "USD.", example: 2 }),
    deficit: z.number().meta({ description: "USD: price minus balance.", example: 4.5 }),
  })
  .meta({ id: "InsufficientBalance" });

export const InsufficientBalanceOfferSchema = InsufficientBalanceSchema.extend({
  x402Version: z.literal(1).optional(),
  accepts: z.array(X402RequirementSchema).optional().meta({
    description: "The x402 offer that pays the purchase instead: exactly its price in USDC on Base.",
  }),
}).meta({
  id: "InsufficientBalanceOffer",
  description:
    "An order or renewal the balance does not cover: the deficit, and the x402 requirement to sign instead.",
});

export type Server = z.infer<typeof ServerSchema>;
export type ServerCreated = z.infer<typeof ServerCreatedSchema>;
export type CreateServerRequest = z.infer<typeof CreateServerRequestSchema>;
