/**
 * Every error code the API answers with: its usual HTTP status and a default sentence. ApiError takes only
 * these codes (the compiler checks each throw site), and the OpenAPI document is tested to name every one,
 * so a new code cannot go undocumented. A few codes also appear under a second status where the spec says so
 * (e.g. `invalid_totp_code` and `invalid_recovery_code` are 401 at sign-in); the throw site passes that
 * status itself.
 */
type Entry = { status: number; message: string };

export const ERROR_CODES = {
  // Request bodies and parameters
  invalid_json: { status: 400, message: "The request body is not valid JSON." },
  invalid_body: { status: 400, message: "The request body must be a JSON object." },
  unknown_field: { status: 400, message: "The body has a field this operation does not take." },
  invalid_request: { status: 400, message: "Invalid body." },
  request_aborted: { status: 400, message: "The request body was not received in full." },
  payload_too_large: { status: 413, message: "The request body exceeds the size limit." },
  unsupported_media_type: {
    status: 415,
    message: "Send the body as JSON with Content-Type: application/json.",
  },
  invalid_limit: { status: 400, message: "Send limit as a whole number in range." },
  invalid_cursor: { status: 400, message: "Send cursor as returned by the previous page." },
  invalid_idempotency_key: {
    status: 400,
    message: "Send Idempotency-Key as 1 to 255 printable ASCII characters.",
  },
  // Authentication and sessions
  unauthorized: { status: 401, message: "A valid API key is required: send Authorization: Bearer <key>." },
  invalid_login: { status: 401, message: "The login token is not valid." },
  totp_required: { status: 401, message: "This account signs in with a TOTP code too." },
  invalid_totp_code: { status: 400, message: "The TOTP code is wrong or was already used." },
  invalid_recovery_code: { status: 400, message: "The recovery code is wrong or was already used." },
  not_a_session: { status: 409, message: "The key is an API key, not a session key." },
  totp_already_enabled: { status: 409, message: "Two-factor sign-in is already on." },
  totp_not_enabled: { status: 409, message: "Two-factor sign-in is not on." },
  totp_not_started: { status: 409, message: "Start two-factor setup first." },
  invalid_name: { status: 400, message: "Invalid key name." },
  key_limit_reached: { status: 409, message: "The account has as many active keys as it may." },
  // Key scopes, conditions and spend caps
  key_expired: { status: 401, message: "The API key has expired; create a new one." },
  missing_scope: { status: 403, message: "The API key does not hold the scope this operation needs." },
  address_not_allowed: { status: 403, message: "The API key may not be used from this client address." },
  beyond_key_rights: {
    status: 403,
    message: "A key can make keys only within its own rights, and revoke only itself and the keys it made.",
  },
  spend_cap_exceeded: { status: 402, message: "This would pass the API key's spend cap for the period." },
  invalid_scopes: { status: 400, message: "Send scopes as a list of key scopes." },
  invalid_expires_at: { status: 400, message: "Send expires_at as a future date-time with its offset." },
  invalid_networks: { status: 400, message: "Send allowed_networks as a list of IPv4 or IPv6 CIDRs." },
  invalid_server_ids: { status: 400, message: "Send server_ids as a list of this account's server ids." },
  invalid_spend_cap: {
    status: 400,
    message: "Send spend_cap as {amount_usd, period}: whole cents, period day, week, month or total.",
  },
  // Servers
  invalid_plan: { status: 400, message: "Choose plan from the catalog." },
  invalid_confirm: { status: 400, message: "Send confirm: the server's hostname." },
  confirmation_mismatch: { status: 400, message: "The confirmation does not match the server's hostname." },
  guest_agent_unavailable: {
    status: 409,
    message:
      "The server's guest agent does not answer: start the server, or reinstall it to set a new password.",
  },
  invalid_location: { status: 400, message: "Choose location from the catalog." },
  invalid_os: { status: 400, message: "Choose os from the catalog." },
  invalid_cycle: { status: 400, message: "Send cycle as monthly or annual." },
  invalid_hostname: { status: 400, message: "Invalid host name." },
  invalid_root_password: { status: 400, message: "Invalid root password." },
  invalid_ssh_key: { status: 400, message: "Invalid SSH public key." },
  invalid_auto_renew: { status: 400, message: "Send auto_renew as true or false." },
  invalid_action: { status: 400, message: "Send action as start, stop or reboot." },
  invalid_period: { status: 400, message: "Send period as 1h, 24h, 7d or 30d." },
  insufficient_balance: { status: 402, message: "The balance does not cover the price." },
  already_charged: { status: 409, message: "This cycle was already charged." },
  os_unavailable: { status: 409, message: "This OS image is not available here." },
  out_of_capacity: { status: 409, message: "No host has room for this server now." },
  server_not_active: { status: 409, message: "Only an active server can do this." },
  account_suspended: {
    status: 403,
    message: "The account is suspended by the operator: no new server can be ordered.",
  },
  server_terminated: { status: 409, message: "The server is terminated." },
  server_held: {
    status: 409,
    message:
      "The operator holds this server (see its `hold`): it cannot be terminated nor its snapshots deleted until the hold is lifted.",
  },
  server_busy: {
    status: 409,
    message:
      "The server is busy with another operation (named with its start time); try again once it has finished.",
  },
  password_unconfirmed: {
    status: 502,
    message:
      "The host did not confirm the new root password, so it may or may not be set; /credentials keeps the last confirmed one. Set a password again.",
  },
  host_unreachable: {
    status: 503,
    message: "The server's host cannot be reached right now; nothing was changed. Retry shortly.",
  },
  // Resizes and cloud-init user data
  invalid_grow_disk: { status: 400, message: "Send grow_disk as true or false." },
  invalid_dry_run: { status: 400, message: "Send dry_run as true or false." },
  invalid_quote: { status: 400, message: "Send quote_id as a dry run of this server's resize returned it." },
  quote_mismatch: { status: 409, message: "The quote is for another plan or disk choice." },
  quote_expired: {
    status: 409,
    message: "The quote no longer holds (10 minutes passed, or the server changed): ask for a new one.",
  },
  already_on_plan: { status: 409, message: "The server is on this plan already." },
  disk_cannot_grow: { status: 409, message: "The plan's disk is not larger than the server's." },
  disk_too_large: {
    status: 409,
    message: "The server's disk is larger than the plan's, and a disk never shrinks.",
  },
  invalid_user_data: {
    status: 400,
    message: "Send user_data as a #cloud-config document or a #! script, at most 32 KiB.",
  },
  // Snapshots and rescue mode
  invalid_snapshot_name: { status: 400, message: "Send name as 1 to 64 printable ASCII characters." },
  invalid_snapshot_first: { status: 400, message: "Send snapshot_first as true or false." },
  snapshot_limit_reached: { status: 409, message: "The server keeps as many snapshots as it may." },
  invalid_frequency: { status: 400, message: "Send frequency as daily or weekly." },
  invalid_hour: { status: 400, message: "Send hour as a whole hour of the day in UTC, 0 to 23." },
  invalid_weekday: {
    status: 400,
    message: "Send weekday (weekly schedules only) as monday, tuesday, ... or sunday.",
  },
  snapshot_not_available: { status: 409, message: "Only an available snapshot can be restored." },
  server_in_rescue: { status: 409, message: "The server is in rescue mode: leave it first." },
  not_in_rescue: { status: 409, message: "The server is not in rescue mode." },
  rescue_unavailable: { status: 409, message: "The rescue system is not installed on this deployment." },
  // Networking: the firewall and reverse DNS
  invalid_firewall_rules: {
    status: 400,
    message:
      "Send rules as a list of at most 100 rules (direction, protocol, ports, sources, destinations, action).",
  },
  firewall_unavailable: {
    status: 409,
    message: "This server's host has no public network to filter (only its SSH port is forwarded).",
  },
  invalid_simulation: {
    status: 400,
    message: "Send direction, protocol, remote_address, and port for tcp and udp.",
  },
  invalid_address: { status: 400, message: "The path must name an IPv4 or IPv6 address." },
  invalid_ptr_name: { status: 400, message: "Send name as a fully qualified host name." },
  rdns_unavailable: { status: 409, message: "Reverse DNS is not managed on this deployment." },
  ptr_not_forward_confirmed: {
    status: 422,
    message: "The name does not resolve to the address: point it there first, then set the PTR.",
  },
  ptr_limit_reached: { status: 409, message: "The server names as many addresses as it may." },
  forward_lookup_unavailable: {
    status: 503,
    message: "The name's forward lookup got no answer; retry shortly.",
  },
  // Top-ups and payments
  invalid_amount: {
    status: 400,
    message: "Send amount as a number of US dollars with at most two decimals.",
  },
  amount_too_low: { status: 400, message: "The amount is below the smallest top-up." },
  amount_too_high: { status: 400, message: "The amount is above the largest top-up." },
  invalid_coin: { status: 400, message: "Choose a coin from the catalog." },
  coin_unavailable: { status: 400, message: "This coin is not accepted now." },
  invalid_payment: { status: 400, message: "The payment header is not a valid payment." },
  too_many_pending_topups: { status: 409, message: "Too many pending top-ups." },
  too_many_topups: {
    status: 429,
    message: "This account made as many deposit top-ups lately as it may; retry after Retry-After seconds.",
  },
  topup_not_pending: { status: 409, message: "The top-up is not pending." },
  payment_received: { status: 409, message: "A payment has arrived for this top-up." },
  not_simulated: { status: 409, message: "This top-up's network is watched on a real chain." },
  rate_unavailable: { status: 503, message: "No exchange rate is available now; retry shortly." },
  payment_required: { status: 402, message: "Pay with USDC on Base and re-send the request." },
  payment_amount_mismatch: { status: 402, message: "The authorization does not pay the asked amount." },
  payment_recipient_mismatch: { status: 402, message: "The authorization pays someone else." },
  payment_network_mismatch: { status: 402, message: "The authorization is for another network." },
  payment_scheme_mismatch: { status: 402, message: "The payment uses another scheme." },
  payment_requirements_mismatch: { status: 402, message: "The accepted terms differ from those offered." },
  payment_expired: { status: 402, message: "The authorization has expired." },
  payment_not_yet_valid: { status: 402, message: "The authorization is not valid yet." },
  payment_validity_too_long: { status: 402, message: "The authorization is valid for too long." },
  payment_window_too_short: {
    status: 402,
    message: "The authorization expires before the order can be built.",
  },
  invalid_payment_signature: { status: 402, message: "The authorization's signature is not valid." },
  payment_wallet_not_deployed: { status: 402, message: "The paying smart wallet is not deployed yet." },
  insufficient_funds: { status: 402, message: "The paying wallet does not hold enough USDC." },
  payment_rejected: { status: 402, message: "The payment was rejected." },
  payment_failed: { status: 402, message: "The payment did not settle." },
  payment_already_used: { status: 409, message: "This payment authorization has already been used." },
  payment_in_progress: { status: 409, message: "This payment is being settled." },
  payment_settled_elsewhere: {
    status: 409,
    message: "This authorization was used on chain, not through this service.",
  },
  payment_settled_by_operator: {
    status: 409,
    message:
      "This payment was credited to the balance by the operator's adjustment; it is not credited again.",
  },
  payment_pending: { status: 503, message: "The payment is still settling; retry shortly." },
  payment_network_unavailable: { status: 503, message: "The payment network is unreachable; retry shortly." },
  // Idempotency, limits, demo and the service itself
  idempotency_key_in_use: { status: 409, message: "A request with this Idempotency-Key is in progress." },
  idempotency_key_reused: { status: 422, message: "The Idempotency-Key was used with a different body." },
  invalid_advance: { status: 400, message: "Send advance_seconds as a whole number of seconds, at least 1." },
  not_found: { status: 404, message: "No such resource." },
  method_not_allowed: { status: 405, message: "This method is not supported here." },
  rate_limited: { status: 429, message: "Too many requests." },
  // Notifications
  invalid_webhook_url: { status: 400, message: "Send url as an absolute https URL (http in demo mode)." },
  webhook_url_refused: {
    status: 400,
    message: "The URL's host is not a public address (loopback, private, link-local or metadata).",
  },
  invalid_kind: { status: 400, message: "Send kind as webhook or ntfy." },
  invalid_events: { status: 400, message: "Send events as a list of event types." },
  invalid_description: { status: 400, message: "Send description as at most 200 characters." },
  invalid_enabled: { status: 400, message: "Send enabled as true or false." },
  invalid_ntfy_token: { status: 400, message: "Send ntfy_token as 1 to 200 printable ASCII characters." },
  invalid_previous_valid_hours: { status: 400, message: "Send previous_valid_hours as 0 to 168." },
  webhook_limit_reached: {
    status: 409,
    message: "The account has as many webhooks and push topics as it may.",
  },
  webhook_disabled: { status: 409, message: "The webhook is turned off: turn it on first." },
  not_a_webhook: { status: 409, message: "This is an ntfy topic: it has no signing secret." },
  delivery_in_progress: { status: 409, message: "An attempt at this delivery is under way." },
  // Consoles
  server_stopped: { status: 409, message: "The server is stopped: start it, then open its console." },
  too_many_consoles: { status: 429, message: "The account has as many consoles open as it may." },
  invalid_ticket: {
    status: 401,
    message: "The console ticket is unknown, used, expired or for another server.",
  },
  forbidden_origin: { status: 403, message: "A console opens only from this service's own pages." },
  upgrade_required: { status: 426, message: "This is a WebSocket endpoint." },
  internal_error: { status: 500, message: "Something went wrong on our side; retry shortly." },
  service_unavailable: { status: 503, message: "The database is briefly unreachable; retry shortly." },
} as const satisfies Record<string, Entry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: string): value is ErrorCode => Object.hasOwn(ERROR_CODES, value);

/**
 * Codes only the dashboard's /bff routes answer with (besides API codes they pass on). They are not part of
 * the API and so not in its OpenAPI document.
 */
export const DASHBOARD_ERROR_CODES = {
  signed_out: { status: 401, message: "Your session has ended; sign in again." },
  cross_origin: { status: 403, message: "This request must come from the dashboard itself." },
  api_unreachable: { status: 502, message: "The service did not answer; try again." },
  chain_unavailable: { status: 503, message: "The payment network is not reachable." },
  demo_wallet_refused: { status: 400, message: "The demo wallet does not sign this." },
} as const satisfies Record<string, Entry>;

/**
 * Codes only the operator's API (/api/operator/v1) answers with, besides the API's own shared ones (bodies,
 * limits, not_found). Documented in the operator's OpenAPI document, not the public one.
 */
export const OPERATOR_ERROR_CODES = {
  invalid_operator_sign_in: { status: 401, message: "The sign-in secret or the code is wrong." },
  csrf_failed: {
    status: 403,
    message: "A write needs this session's X-CSRF-Token and must come from this site's own pages.",
  },
  operator_forbidden: { status: 403, message: "Your role does not allow this." },
  already_suspended: { status: 409, message: "It is suspended already." },
  not_suspended: { status: 409, message: "It is not suspended by an operator." },
  already_reviewed: { status: 409, message: "This payment was reviewed already." },
  adjustment_exceeds_balance: { status: 409, message: "A debit cannot take the balance below zero." },
  payment_already_settled: {
    status: 409,
    message: "An adjustment settled this payment already: one adjustment per flagged payment.",
  },
  payment_being_settled: {
    status: 409,
    message:
      "The customer's retry is settling this payment from the chain right now; look again in a minute.",
  },
  approval_needs_another_admin: {
    status: 403,
    message:
      "An adjustment past its operator's daily cap is approved by another admin, not by its requester.",
  },
  approval_decided: { status: 409, message: "This approval was decided already." },
  operator_disabled_already: { status: 409, message: "This operator is deactivated already." },
  cannot_disable_self: {
    status: 409,
    message: "Deactivate yourself from the machine (`npm run operator:disable`), not from your own session.",
  },
  console_closed: { status: 409, message: "This console session is closed already." },
} as const satisfies Record<string, Entry>;

export type OperatorErrorCode = keyof typeof OPERATOR_ERROR_CODES;
