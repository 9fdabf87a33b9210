/** A fresh Idempotency-Key for one intended money-moving action (an order, a renewal). */
export const newIdempotencyKey = () => crypto.randomUUID();
