/** How long a session key from POST /sessions lives; the dashboard's cookie that holds it lives as long. */
export const SESSION_KEY_TTL_SECONDS = 7 * 24 * 3600;
