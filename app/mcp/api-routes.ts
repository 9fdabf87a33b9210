/**
 * The route module of every API path, by the path the OpenAPI document gives it, so that an MCP tool call is
 * answered by the same handler as the HTTP request (lib/mcp/server.ts). A unit test fails when an operation
 * of the document has no module here or its module lacks the method.
 */
import * as accountLoginTokenRoute from "@/app/api/v1/account/login-token/route";
import * as accountRecoveryCodesRoute from "@/app/api/v1/account/recovery-codes/route";
import * as accountRoute from "@/app/api/v1/account/route";
import * as accountTotpConfirmRoute from "@/app/api/v1/account/totp/confirm/route";
import * as accountTotpDisableRoute from "@/app/api/v1/account/totp/disable/route";
import * as accountTotpRoute from "@/app/api/v1/account/totp/route";
import * as catalogRoute from "@/app/api/v1/catalog/route";
import * as demoClockRoute from "@/app/api/v1/demo/clock/route";
import * as demoTopupsRefPayRoute from "@/app/api/v1/demo/topups/[ref]/pay/route";
import * as healthRoute from "@/app/api/v1/health/route";
import * as keysIdRoute from "@/app/api/v1/keys/[id]/route";
import * as keysCurrentRoute from "@/app/api/v1/keys/current/route";
import * as keysRoute from "@/app/api/v1/keys/route";
import * as openapiJsonRoute from "@/app/api/v1/openapi.json/route";
import * as serversIdActionsRoute from "@/app/api/v1/servers/[id]/actions/route";
import * as serversIdConsoleRoute from "@/app/api/v1/servers/[id]/console/route";
import * as serversIdCredentialsRoute from "@/app/api/v1/servers/[id]/credentials/route";
import * as serversIdExpiryWarningsRoute from "@/app/api/v1/servers/[id]/expiry-warnings/route";
import * as serversIdFirewallRoute from "@/app/api/v1/servers/[id]/firewall/route";
import * as serversIdFirewallSimulateRoute from "@/app/api/v1/servers/[id]/firewall/simulate/route";
import * as serversIdMetricsRoute from "@/app/api/v1/servers/[id]/metrics/route";
import * as serversIdPasswordRoute from "@/app/api/v1/servers/[id]/password/route";
import * as serversIdRdnsAddressRoute from "@/app/api/v1/servers/[id]/rdns/[address]/route";
import * as serversIdRdnsRoute from "@/app/api/v1/servers/[id]/rdns/route";
import * as serversIdReinstallRoute from "@/app/api/v1/servers/[id]/reinstall/route";
import * as serversIdRenewRoute from "@/app/api/v1/servers/[id]/renew/route";
import * as serversIdRescueRoute from "@/app/api/v1/servers/[id]/rescue/route";
import * as serversIdResizeRoute from "@/app/api/v1/servers/[id]/resize/route";
import * as serversIdResizesRoute from "@/app/api/v1/servers/[id]/resizes/route";
import * as serversIdRoute from "@/app/api/v1/servers/[id]/route";
import * as serversIdSnapshotsSnapshotIdRestoreRoute from "@/app/api/v1/servers/[id]/snapshots/[snapshotId]/restore/route";
import * as serversIdSnapshotsSnapshotIdRoute from "@/app/api/v1/servers/[id]/snapshots/[snapshotId]/route";
import * as serversIdSnapshotsRoute from "@/app/api/v1/servers/[id]/snapshots/route";
import * as serversIdSnapshotsScheduleRoute from "@/app/api/v1/servers/[id]/snapshots/schedule/route";
import * as serversRoute from "@/app/api/v1/servers/route";
import * as sessionsIdRoute from "@/app/api/v1/sessions/[id]/route";
import * as sessionsCurrentRoute from "@/app/api/v1/sessions/current/route";
import * as sessionsRoute from "@/app/api/v1/sessions/route";
import * as statusRoute from "@/app/api/v1/status/route";
import * as topupsRefCancelRoute from "@/app/api/v1/topups/[ref]/cancel/route";
import * as topupsRefRoute from "@/app/api/v1/topups/[ref]/route";
import * as topupsRoute from "@/app/api/v1/topups/route";
import * as webhooksIdDeliveriesDeliveryIdRedeliverRoute from "@/app/api/v1/webhooks/[id]/deliveries/[deliveryId]/redeliver/route";
import * as webhooksIdDeliveriesRoute from "@/app/api/v1/webhooks/[id]/deliveries/route";
import * as webhooksIdRotateSecretRoute from "@/app/api/v1/webhooks/[id]/rotate-secret/route";
import * as webhooksIdRoute from "@/app/api/v1/webhooks/[id]/route";
import * as webhooksIdTestRoute from "@/app/api/v1/webhooks/[id]/test/route";
import * as webhooksRoute from "@/app/api/v1/webhooks/route";

/** A module's exports by HTTP method (GET, POST, ...), among whatever else it exports. */
export const API_ROUTES: Record<string, Record<string, unknown>> = {
  "/account/login-token": accountLoginTokenRoute,
  "/account/recovery-codes": accountRecoveryCodesRoute,
  "/account": accountRoute,
  "/account/totp/confirm": accountTotpConfirmRoute,
  "/account/totp/disable": accountTotpDisableRoute,
  "/account/totp": accountTotpRoute,
  "/catalog": catalogRoute,
  "/demo/clock": demoClockRoute,
  "/demo/topups/{ref}/pay": demoTopupsRefPayRoute,
  "/health": healthRoute,
  "/keys/{id}": keysIdRoute,
  "/keys/current": keysCurrentRoute,
  "/keys": keysRoute,
  "/openapi.json": openapiJsonRoute,
  "/servers/{id}/actions": serversIdActionsRoute,
  "/servers/{id}/console": serversIdConsoleRoute,
  "/servers/{id}/credentials": serversIdCredentialsRoute,
  "/servers/{id}/expiry-warnings": serversIdExpiryWarningsRoute,
  "/servers/{id}/firewall": serversIdFirewallRoute,
  "/servers/{id}/firewall/simulate": serversIdFirewallSimulateRoute,
  "/servers/{id}/metrics": serversIdMetricsRoute,
  "/servers/{id}/password": serversIdPasswordRoute,
  "/servers/{id}/rdns/{address}": serversIdRdnsAddressRoute,
  "/servers/{id}/rdns": serversIdRdnsRoute,
  "/servers/{id}/reinstall": serversIdReinstallRoute,
  "/servers/{id}/renew": serversIdRenewRoute,
  "/servers/{id}/rescue": serversIdRescueRoute,
  "/servers/{id}/resize": serversIdResizeRoute,
  "/servers/{id}/resizes": serversIdResizesRoute,
  "/servers/{id}": serversIdRoute,
  "/servers/{id}/snapshots/{snapshotId}/restore": serversIdSnapshotsSnapshotIdRestoreRoute,
  "/servers/{id}/snapshots/{snapshotId}": serversIdSnapshotsSnapshotIdRoute,
  "/servers/{id}/snapshots/schedule": serversIdSnapshotsScheduleRoute,
  "/servers/{id}/snapshots": serversIdSnapshotsRoute,
  "/servers": serversRoute,
  "/sessions/{id}": sessionsIdRoute,
  "/sessions/current": sessionsCurrentRoute,
  "/sessions": sessionsRoute,
  "/status": statusRoute,
  "/topups/{ref}/cancel": topupsRefCancelRoute,
  "/topups/{ref}": topupsRefRoute,
  "/topups": topupsRoute,
  "/webhooks/{id}/deliveries/{deliveryId}/redeliver": webhooksIdDeliveriesDeliveryIdRedeliverRoute,
  "/webhooks/{id}/deliveries": webhooksIdDeliveriesRoute,
  "/webhooks/{id}/rotate-secret": webhooksIdRotateSecretRoute,
  "/webhooks/{id}": webhooksIdRoute,
  "/webhooks/{id}/test": webhooksIdTestRoute,
  "/webhooks": webhooksRoute,
};
