import type { components } from "@/lib/dashboard/api-client/schema";

/** The API's own shapes, as the BFF relays them to the browser. */
export type Schemas = components["schemas"];
export type Account = Schemas["Account"];
export type Server = Schemas["Server"];
export type ServerMetrics = Schemas["ServerMetrics"];
export type Topup = Schemas["Topup"];
export type Snapshot = Schemas["Snapshot"];
export type SnapshotList = Schemas["SnapshotList"];
export type SnapshotSchedule = Schemas["SnapshotSchedule"];
export type Resize = Schemas["Resize"];
export type ResizeQuote = Schemas["ResizeQuote"];
export type Webhook = Schemas["Webhook"];
export type WebhookCreated = Schemas["WebhookCreated"];
export type Delivery = Schemas["Delivery"];
export type ExpiryWarnings = Schemas["ExpiryWarnings"];
