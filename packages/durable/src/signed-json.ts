import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "@needlework/core/kit";

function hmac(key: Uint8Array, body: object): string {
  return createHmac("sha256", key).update(canonicalJson(body)).digest("hex");
}

/**
 * Signs `body` with `key`: HMAC-SHA256 (hex) over its canonical JSON, after a JSON round trip, so
 * the signed text is exactly what a stored copy will hold. How a checkpoint (the signed, serialized
 * journal of a paused run) is signed.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function signJson<T extends object>(body: T, key: Uint8Array): T & { readonly signature: string } {
  const plain = JSON.parse(JSON.stringify(body)) as T;
  return { ...plain, signature: hmac(key, plain) };
}

/**
 * Whether `signature` is the signature {@link signJson} gives `body` with `key`: `unsigned` when it is
 * not a hex HMAC-SHA256 at all, `unserializable` when `body` cannot be serialized, `mismatch` when
 * it was altered or signed with another key (compared in constant time).
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function checkJsonSignature(
  body: object,
  signature: unknown,
  key: Uint8Array,
): "valid" | "unsigned" | "unserializable" | "mismatch" {
  if (typeof signature !== "string" || !/^[0-9a-f]{64}$/.test(signature)) return "unsigned";
  let expected: string;
  try {
    expected = hmac(key, body);
  } catch {
    return "unserializable";
  }
  return timingSafeEqual(Buffer.from(expected, "hex"), Buffer.from(signature, "hex")) ? "valid" : "mismatch";
}
