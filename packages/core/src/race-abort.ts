import { abortReason } from "./errors.js";

/**
 * Settles with `promise`, or rejects with the abort reason as soon as `signal` aborts, so a step
 * whose work ignores the signal (a tool, a policy) cannot hold a cancelled run open. The listener is
 * removed either way.
 *
 * @example
 * ```ts
 * const outcome = await raceAbort(invoker.invoke(call, { signal }), signal);
 * ```
 * @internal
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // The work is abandoned: its own rejection (often the same abort) is no one's to handle.
    promise.catch(() => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
