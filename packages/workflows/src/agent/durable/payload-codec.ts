import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { z } from "zod";
import { RunStoreError } from "./run-store-error.js";

/**
 * Turns a payload into what a store keeps, and back: `codec` of `PostgresStore` and `FileRunStore`.
 * Every payload (input, instructions, messages, tool arguments, outcomes, formatted text, results,
 * dead-letter entries) goes through `encode` before it is stored and `decode` when it is read; ids,
 * agent and tool names, statuses, error codes and times stay readable for queries.
 *
 * @example
 * ```ts
 * const codec: PayloadCodec = aesGcmCodec(process.env.NEEDLEWORK_KEY!);
 * const store = new FileRunStore("/var/lib/crm-sync", { codec });
 * ```
 */
export interface PayloadCodec {
  encode(plain: string): string | Promise<string>;
  decode(stored: string): string | Promise<string>;
}

/** The `codec` option of a store or the inspector, checked: anything with `encode` and `decode` functions. @internal */
export const payloadCodecOption = z.custom<PayloadCodec>(
  (v) => typeof (v as PayloadCodec | null)?.encode === "function" && typeof (v as PayloadCodec).decode === "function",
  "must be a PayloadCodec ({ encode, decode })",
);

/** A 32-byte AES-256 key: the bytes, or the same as 64 hex digits or base64. */
export type AesKey = Uint8Array | string;

/** Keys by id, and the id `encode` uses: rotate by adding a key and making it `current`. */
export interface AesKeyRing {
  readonly current: string;
  readonly keys: Readonly<Record<string, AesKey>>;
}

const PREFIX = "nwc1";
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

function keyBytes(key: AesKey, name: string): Buffer {
  let bytes: Buffer | undefined;
  if (key instanceof Uint8Array) bytes = Buffer.from(key);
  else if (typeof key === "string" && /^[0-9a-fA-F]{64}$/.test(key)) bytes = Buffer.from(key, "hex");
  else if (typeof key === "string") bytes = Buffer.from(key, "base64");
  if (bytes === undefined || bytes.length !== 32)
    throw new TypeError(
      `aesGcmCodec: key ${name} must be 32 bytes (a Uint8Array, 64 hex digits or base64 of 32 bytes); got ${bytes?.length ?? 0} bytes.`,
    );
  return bytes;
}

const unreadable = (why: string): RunStoreError =>
  new RunStoreError("PAYLOAD_UNREADABLE", `aesGcmCodec: a stored payload cannot be decoded: ${why}.`);

/**
 * AES-256-GCM with a random 96-bit IV per value, authenticated (an altered value is refused). The
 * stored form names its key: `nwc1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url), so with a key ring
 * `aesGcmCodec({ current: "k2", keys: { k1, k2 } })` encodes with `k2` and still decodes what `k1`
 * wrote. A value it cannot decode (an unknown key id, altered bytes, not its format) throws
 * `RunStoreError` `PAYLOAD_UNREADABLE`, naming no key material.
 *
 * @example
 * ```ts
 * const codec = aesGcmCodec({ current: "2026-11", keys: { "2026-05": oldKey, "2026-11": newKey } });
 * const store = new PostgresStore({ connectionString: process.env.DATABASE_URL, codec });
 * ```
 */
export function aesGcmCodec(key: AesKey | AesKeyRing): PayloadCodec {
  const ring: AesKeyRing =
    typeof key === "object" && !(key instanceof Uint8Array) ? key : { current: "k", keys: { k: key } };
  const keys = new Map<string, Buffer>();
  for (const [id, value] of Object.entries(ring.keys)) {
    if (!KEY_ID.test(id))
      throw new TypeError(`aesGcmCodec: key id ${JSON.stringify(id)} must be 1-32 letters, digits, _ or -.`);
    keys.set(id, keyBytes(value, JSON.stringify(id)));
  }
  const current = keys.get(ring.current);
  if (current === undefined)
    throw new TypeError(`aesGcmCodec: current key ${JSON.stringify(ring.current)} is not in keys.`);
  return {
    encode(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", current, iv);
      const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString("base64url"));
      return [PREFIX, ring.current, ...parts].join(".");
    },
    decode(stored) {
      const parts = stored.split(".");
      if (parts.length !== 5 || parts[0] !== PREFIX) throw unreadable("it is not in the codec's format");
      const [, id, iv, tag, data] = parts as [string, string, string, string, string];
      const secret = keys.get(id);
      if (secret === undefined) throw unreadable(`it was written with key ${JSON.stringify(id)}, which is not in keys`);
      try {
        const decipher = createDecipheriv("aes-256-gcm", secret, Buffer.from(iv, "base64url"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        throw unreadable("it was altered, or written with another key of the same id");
      }
    },
  };
}
