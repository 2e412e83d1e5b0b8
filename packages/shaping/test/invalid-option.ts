import { InvalidOptionError } from "@needlework/core";

/** The `InvalidOptionError` that `fn` throws; fails the test when it throws anything else, or nothing. */
export function invalidOption(fn: () => unknown): InvalidOptionError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidOptionError) return error;
    throw new Error(`expected an InvalidOptionError, got ${String(error)}`);
  }
  throw new Error("expected an InvalidOptionError, but nothing was thrown");
}
