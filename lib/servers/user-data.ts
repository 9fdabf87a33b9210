import { createHash } from "node:crypto";
import { parse } from "yaml";
import { badRequest } from "@/lib/api/errors";
import { USER_DATA_MAX_BYTES } from "@/lib/api/schemas/servers";
import { seal, unseal } from "@/lib/util/seal";

/**
 * The owner's cloud-init user data, given at order or reinstall: a `#cloud-config` document (a YAML mapping) or
 * a script (`#!`), at most 32 KiB. It reaches the machine once, merged into the service's own seed at its build
 * (libvirt/user-data.ts), where the service's part wins. It is kept sealed (AES-256-GCM, bound to the server)
 * only until that build is done; no answer ever shows it, only its SHA-256 and size, and it is never logged.
 */

export type UserDataKind = "cloud-config" | "script";

const refuse = (why: string) =>
  badRequest("invalid_user_data", `Send user_data as a #cloud-config document or a #! script: ${why}.`);

/** The kind of the user data, or 400 invalid_user_data saying what is wrong with it (never quoting it). */
export function checkUserData(text: string): UserDataKind {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes === 0) throw refuse("it is empty");
  if (bytes > USER_DATA_MAX_BYTES) throw refuse(`it is ${bytes} bytes, above ${USER_DATA_MAX_BYTES}`);
  if (text.includes("\0")) throw refuse("it holds a NUL character");
  const firstLine = text.split("\n", 1)[0]?.trimEnd() ?? "";
  if (firstLine.startsWith("#!")) return "script";
  if (firstLine !== "#cloud-config") throw refuse("its first line is neither #cloud-config nor #!");
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    // The parser's position (line and column), not the text around it.
    const where = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw refuse(`it is not valid YAML${where ? ` (line ${where.line}, column ${where.col})` : ""}`);
  }
  if (document !== null && (typeof document !== "object" || Array.isArray(document))) {
    throw refuse("a #cloud-config document must be a mapping of keys");
  }
  return "cloud-config";
}

/** What is shown of user data: its SHA-256 (hex) and its size in bytes. */
export function userDataFacts(text: string): { sha256: string; bytes: number } {
  return {
    sha256: createHash("sha256").update(text, "utf8").digest("hex"),
    bytes: Buffer.byteLength(text, "utf8"),
  };
}

const purpose = (serverId: number) => `server:${serverId}:user_data`;

export const sealUserData = (key: Buffer, serverId: number, text: string) =>
  seal(key, purpose(serverId), text);

export const openUserData = (key: Buffer, serverId: number, stored: string) =>
  unseal(key, purpose(serverId), stored);

/** The server columns of user data given at order or reinstall (all null when none was given). */
export function userDataColumns(key: Buffer, serverId: number, text: string | undefined) {
  if (text === undefined) return { userDataEnc: null, userDataSha256: null, userDataBytes: null };
  const facts = userDataFacts(text);
  return {
    userDataEnc: sealUserData(key, serverId, text),
    userDataSha256: facts.sha256,
    userDataBytes: facts.bytes,
  };
}
