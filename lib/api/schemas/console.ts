import { z } from "zod";

export const ConsoleTicketSchema = z
  .object({
    ticket: z.string().meta({
      description:
        "Single use, bound to this account and server, valid until `expires_at`. Offer it as the subprotocol " +
        "`ticket.<ticket>` beside `protocol` when opening `websocket_url`. Never put it in a URL.",
      example: "vpsct_3q2-7wEvK1d8pZr0c9b7Qn3sX5uWmYhLtA6gJfR2kDo",
    }),
    expires_at: z.string().meta({
      description: "When the unused ticket stops working (ISO 8601).",
      example: "2026-11-25T12:00:30.000Z",
    }),
    websocket_url: z.string().meta({
      description: "The console's WebSocket endpoint at this service's public origin (`wss://` behind TLS).",
      example: "wss://vps.example.com/api/v1/servers/42/console/socket",
    }),
    protocol: z.literal("vps-console.v1").meta({ description: "The WebSocket subprotocol to offer." }),
    session_id: z.int().meta({
      description: "The session this ticket opens, as the operator's record names it.",
      example: 17,
    }),
    demo: z.boolean().meta({
      description: "True on the simulated provisioner: the console is a demo shell, no machine is behind it.",
    }),
  })
  .meta({ id: "ConsoleTicket" });

export type ConsoleTicketBody = z.infer<typeof ConsoleTicketSchema>;

export const ConsolesClosedSchema = z
  .object({
    server_id: z.int().meta({ example: 42 }),
    closed: z.int().meta({
      description: "How many open consoles of the server were closed (unused tickets are withdrawn too).",
      example: 1,
    }),
  })
  .meta({ id: "ConsolesClosed" });
