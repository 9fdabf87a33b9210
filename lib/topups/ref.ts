import { randomBytes } from "node:crypto";
import { base32crockford } from "@scure/base";

/** A top-up's public reference: `tp_` and 24 characters of Crockford base32 (120 random bits). */
export const newTopupRef = () => `tp_${base32crockford.encode(randomBytes(15)).toLowerCase()}`;

/** Whether `ref` has the form newTopupRef gives, so a malformed one is answered 404 without a query. */
export const isTopupRef = (ref: string) => /^tp_[0-9a-z]{24}$/.test(ref);
