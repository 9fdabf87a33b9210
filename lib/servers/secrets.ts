import { createHmac } from "node:crypto";
import { randomString } from "@/lib/accounts/credentials";
import { seal, unseal } from "@/lib/util/seal";

const rootPasswordPurpose = (serverId: number) => `server:${serverId}:root_password`;

export const encryptRootPassword = (key: Buffer, serverId: number, password: string) =>
  seal(key, rootPasswordPurpose(serverId), password);

export const decryptRootPassword = (key: Buffer, serverId: number, stored: string) =>
  unseal(key, rootPasswordPurpose(serverId), stored);

/** Letters and digits without look-alikes (0/O, 1/l/I), plus a few symbols every console accepts. */
const PASSWORD_ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_.@%+=";

/** A generated root password: 24 characters, about 143 bits. */
export const generateRootPassword = () => randomString(PASSWORD_ALPHABET, 24);

const rescuePasswordPurpose = (serverId: number) => `server:${serverId}:rescue_password`;

/** The rescue system's temporary root password, sealed apart from the server's own. */
export const encryptRescuePassword = (key: Buffer, serverId: number, password: string) =>
  seal(key, rescuePasswordPurpose(serverId), password);

export const decryptRescuePassword = (key: Buffer, serverId: number, stored: string) =>
  unseal(key, rescuePasswordPurpose(serverId), stored);

/**
 * A secret of a request (a chosen password, user data) as a stored request fingerprint may hold it: only a keyed
 * hash, never guessable offline.
 */
export const fingerprintedPassword = (key: Buffer, password: string | undefined) =>
  password === undefined ? null : createHmac("sha256", key).update(password).digest("hex");
