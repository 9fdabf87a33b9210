import { createHash } from "node:crypto";

/**
 * Reads the outputs of serialized Bitcoin-style blocks and transactions (what `getblock <hash> 0` and
 * `getrawtransaction <txid> false` return): the watcher needs only each output's scriptPubKey and value,
 * and the transaction id of those that pay us. Raw hex is a fraction of the verbose JSON's size and needs
 * no float parsing; values come out as exact integer satoshis.
 */

/** A serialization this parser does not read (e.g. Litecoin's MWEB transactions): use verbose JSON. */
export class UnsupportedSerialization extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsupportedSerialization";
  }
}

export type RawOutput = { txid: string; n: number; value: bigint; script: string };

class Reader {
  offset = 0;
  constructor(readonly bytes: Buffer) {}

  need(count: number): void {
    if (this.offset + count > this.bytes.length) throw new UnsupportedSerialization("truncated data");
  }

  skip(count: number): void {
    this.need(count);
    this.offset += count;
  }

  byte(): number {
    this.need(1);
    return this.bytes[this.offset++] as number;
  }

  varint(): number {
    const first = this.byte();
    if (first < 0xfd) return first;
    const size = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    this.need(size);
    const value =
      size === 8 ? Number(this.bytes.readBigUInt64LE(this.offset)) : this.bytes.readUIntLE(this.offset, size);
    this.offset += size;
    if (!Number.isSafeInteger(value)) throw new UnsupportedSerialization("count out of range");
    return value;
  }
}

const doubleSha256 = (parts: Buffer[]) => {
  const first = createHash("sha256");
  for (const part of parts) first.update(part);
  return createHash("sha256").update(first.digest()).digest();
};

/**
 * Reads one transaction at the reader's position and hands `keep` each output's script (hex); returns
 * the kept outputs with the transaction id, computed only when something was kept.
 */
function readTransaction(reader: Reader, keep: (script: string) => boolean, found: RawOutput[]): void {
  const bytes = reader.bytes;
  const start = reader.offset;
  reader.skip(4); // version
  let segwit = false;
  if (bytes[reader.offset] === 0x00) {
    // An empty input list cannot be valid, so 0x00 here is the segwit marker; the flag must be 0x01.
    reader.skip(1);
    const flag = reader.byte();
    if (flag !== 0x01) throw new UnsupportedSerialization(`transaction flag 0x${flag.toString(16)}`);
    segwit = true;
  }
  const bodyStart = reader.offset;
  const inputs = reader.varint();
  for (let i = 0; i < inputs; i++) {
    reader.skip(36); // previous output
    reader.skip(reader.varint()); // scriptSig
    reader.skip(4); // sequence
  }
  const outputs = reader.varint();
  const kept: Omit<RawOutput, "txid">[] = [];
  for (let n = 0; n < outputs; n++) {
    reader.need(8);
    const valueAt = reader.offset;
    reader.skip(8);
    const length = reader.varint();
    reader.need(length);
    const script = bytes.toString("hex", reader.offset, reader.offset + length);
    reader.skip(length);
    if (keep(script)) kept.push({ n, value: bytes.readBigUInt64LE(valueAt), script });
  }
  const bodyEnd = reader.offset;
  if (segwit) {
    for (let i = 0; i < inputs; i++) {
      const items = reader.varint();
      for (let j = 0; j < items; j++) reader.skip(reader.varint());
    }
  }
  reader.skip(4); // lock time
  if (kept.length === 0) return;
  // The id hashes the serialization without marker, flag and witnesses; it is shown byte-reversed.
  const txid = doubleSha256([
    bytes.subarray(start, start + 4),
    bytes.subarray(bodyStart, bodyEnd),
    bytes.subarray(reader.offset - 4, reader.offset),
  ])
    .reverse()
    .toString("hex");
  for (const output of kept) found.push({ txid, ...output });
}

/** The outputs of a serialized block whose script `keep` accepts. */
export function blockOutputs(hex: string, keep: (script: string) => boolean): RawOutput[] {
  const reader = new Reader(Buffer.from(hex, "hex"));
  reader.skip(80); // header
  const count = reader.varint();
  const found: RawOutput[] = [];
  for (let i = 0; i < count; i++) readTransaction(reader, keep, found);
  return found;
}

/** The outputs of one serialized transaction whose script `keep` accepts. */
export function transactionOutputs(hex: string, keep: (script: string) => boolean): RawOutput[] {
  const reader = new Reader(Buffer.from(hex, "hex"));
  const found: RawOutput[] = [];
  readTransaction(reader, keep, found);
  return found;
}
