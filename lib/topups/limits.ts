/** Open deposit top-ups an account may hold at once: each one reserves a fresh address. */
export const MAX_PENDING_TOPUPS = 10;
