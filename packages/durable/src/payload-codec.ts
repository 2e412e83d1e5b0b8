import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { z } from "zod";
import { RunStoreError } from "./run-store-error.js";

/**
 * Where a payload belongs: the store area, the run, the field (`kind`) and the call id or turn index
 * (`ref`). Stores pass it to `encode` and `decode`; a codec that binds its output to it (as
 * `aesGcmCodec` does, as associated data) refuses a value moved to another run, row or field.
 *
 * @example
 * ```ts
 * const context: PayloadContext = { namespace: "journal", runId: "run_1", kind: "arguments", ref: "call_1" };
 * const sealed = await codec.encode('{"to":"c1@example.com"}', context);
 * ```
 */
export interface PayloadContext {
  /** The store area: `journal` or `dead-letter`. */
  readonly namespace: string;
  readonly runId: string;
  /** The field: `instructions`, `input`, `turn`, `arguments`, `outcome`, `formatted`, `result`, `dead-letter`. */
  readonly kind: string;
  /** The call id (arguments, outcome, formatted) or turn index (turn); absent for run-level fields. */
  readonly ref?: string;
  /**
   * The store's identity (`postgres:<schema>`, `file:<id of its directory>`): a codec that binds
   * values to it refuses a value moved to another store, even one that shares the key.
   */
  readonly store?: string;
}

/**
 * Turns a payload into what a store keeps, and back: `codec` of `PostgresStore` and `FileRunStore`.
 * Every payload (input, instructions, messages, tool arguments, outcomes, formatted text, results,
 * dead-letter entries) goes through `encode` before it is stored and `decode` when it is read; ids,
 * agent and tool names, statuses, error codes and times stay readable for queries. Stores pass the
 * payload's place (`context`); a codec written before it existed ignores it and keeps working.
 *
 * @example
 * ```ts
 * const codec: PayloadCodec = aesGcmCodec(process.env.NEEDLEWORK_KEY!);
 * const store = new FileRunStore("./data/crm-sync", { codec });
 * ```
 */
export interface PayloadCodec {
  encode(plain: string, context?: PayloadContext): string | Promise<string>;
  decode(stored: string, context?: PayloadContext): string | Promise<string>;
}

/**
 * The zod schema of a `codec` option (a store's or the inspector's): anything with `encode` and
 * `decode` functions.
 *
 * @example
 * ```ts
 * const options = z.strictObject({ codec: payloadCodecOption.optional() });
 * ```
 */
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

/**
 * The stored form's version: `nwc3` binds the value to its store and its place; `nwc2` (before it)
 * to its place only; `nwc1` to neither.
 */
const PREFIX = "nwc3";
const PLACE_BOUND = "nwc2";
const UNBOUND = "nwc1";
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
/** GCM's full tag, and the IV length it is made for. */
const TAG_BYTES = 16;
const IV_BYTES = 12;

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

/** Options of {@link aesGcmCodec}. */
export interface AesGcmCodecOptions {
  /**
   * Also decode values in the stored forms of earlier versions: `nwc2` (bound to its place, not to
   * its store) and `nwc1` (bound to neither). A database writer could move such a value to another
   * store that shares the key (`nwc2`), or to another run or field (`nwc1`). Only while old runs are
   * read during an upgrade; default `false` (they are `PAYLOAD_UNREADABLE`).
   */
  readonly readUnbound?: boolean;
}

/** The associated data a value is bound to: the stored form's version, its store (`nwc3`) and its place. */
function associatedData(version: string, context: PayloadContext | undefined): Buffer {
  const place =
    context === undefined ? [] : [context.namespace, context.runId, context.kind, context.ref ?? ""].map(String);
  const store = version === PREFIX ? [String(context?.store ?? "")] : [];
  return Buffer.from(JSON.stringify([version, ...store, ...place]), "utf8");
}

/**
 * AES-256-GCM with a random 96-bit IV per value, authenticated (an altered value is refused) and
 * bound to its store and its place: the context a store passes (its identity, namespace, run id,
 * field, call id or turn index) is the associated data, so a value moved to another run, row, field
 * or store (one sharing the key included) is refused. The stored form names its version and key:
 * `nwc3.<keyId>.<iv>.<tag>.<ciphertext>` (base64url), so with a key ring
 * `aesGcmCodec({ current: "k2", keys: { k1, k2 } })` encodes with `k2` and still decodes what `k1`
 * wrote. A value it cannot decode (an unknown key id, altered bytes, another place, not its format)
 * throws `RunStoreError` `PAYLOAD_UNREADABLE`, naming no key material. Values of the earlier forms
 * (`nwc2`, not bound to their store; `nwc1`, not bound to their place) decode only with
 * `{ readUnbound: true }`.
 *
 * @example
 * ```ts
 * const codec = aesGcmCodec({ current: "2026-11", keys: { "2026-05": oldKey, "2026-11": newKey } });
 * const store = new PostgresStore({ connectionString: process.env.DATABASE_URL, codec });
 * ```
 */
export function aesGcmCodec(key: AesKey | AesKeyRing, options: AesGcmCodecOptions = {}): PayloadCodec {
  const readUnbound = Object.hasOwn(options, "readUnbound") && options.readUnbound === true;
  const ring: AesKeyRing =
    typeof key === "object" && !(key instanceof Uint8Array) ? key : { current: "k", keys: { k: key } };
  const keys = new Map<string, Buffer>();
  if (!Object.hasOwn(ring, "current") || !Object.hasOwn(ring, "keys"))
    throw new TypeError("aesGcmCodec: pass a 32-byte key, or a key ring { current, keys }.");
  for (const [id, value] of Object.entries(ring.keys)) {
    if (!KEY_ID.test(id))
      throw new TypeError(`aesGcmCodec: key id ${JSON.stringify(id)} must be 1-32 letters, digits, _ or -.`);
    keys.set(id, keyBytes(value, JSON.stringify(id)));
  }
  const current = keys.get(ring.current);
  if (current === undefined)
    throw new TypeError(`aesGcmCodec: current key ${JSON.stringify(ring.current)} is not in keys.`);
  return {
    encode(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(associatedData(PREFIX, context));
      const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString("base64url"));
      return [PREFIX, ring.current, ...parts].join(".");
    },
    decode(stored, context) {
      const parts = typeof stored === "string" ? stored.split(".") : [];
      const version = parts[0];
      if (parts.length !== 5 || (version !== PREFIX && version !== PLACE_BOUND && version !== UNBOUND))
        throw unreadable("it is not in the codec's format");
      if (version !== PREFIX && !readUnbound)
        throw unreadable(
          `it is in the ${version} form of an earlier version, not bound to its ${version === UNBOUND ? "place" : "store"} (decode it with { readUnbound: true })`,
        );
      const [, id, iv, tag, data] = parts as [string, string, string, string, string];
      const secret = keys.get(id);
      if (secret === undefined) throw unreadable(`it was written with key ${JSON.stringify(id)}, which is not in keys`);
      const ivBytes = Buffer.from(iv, "base64url");
      const tagBytes = Buffer.from(tag, "base64url");
      // GCM accepts tags cut down to 4 bytes, each byte cut a forger's work 256 times less: only the
      // full 16-byte tag `encode` writes (and the 12-byte IV) is accepted.
      if (tagBytes.length !== TAG_BYTES || ivBytes.length !== IV_BYTES)
        throw unreadable("its authentication tag or IV is not the full length the codec writes");
      try {
        const decipher = createDecipheriv("aes-256-gcm", secret, ivBytes, { authTagLength: TAG_BYTES });
        if (version !== UNBOUND) decipher.setAAD(associatedData(version, context));
        decipher.setAuthTag(tagBytes);
        return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        throw unreadable(
          "it was altered, moved from another run, row, field or store, or written with another key of the same id",
        );
      }
    },
  };
}
