// Test support: a read a codec must refuse, refused as users see it.
import { expect } from "vitest";

/**
 * Awaits `promise`, expects it to reject with `PAYLOAD_UNREADABLE`, and expects neither the error's
 * message nor its stack to hold `secret` (the sealed value never leaks through the refusal).
 */
export async function refusedUnreadable(promise: Promise<unknown>, secret: string): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ code: "PAYLOAD_UNREADABLE" });
  expect(JSON.stringify({ message: (error as Error).message, stack: (error as Error).stack })).not.toContain(secret);
  return error as Error;
}
