import { formatToolOutcome } from "@needlework/core";
import { countTokens, type TokenEncoding } from "@needlework/workflows/shaping";
import { ADD_INPUT, addSchema, BAD_INPUT, PREBUILT_ERROR } from "./lib/add-tools.js";
import { defineBenchmark, type Measurement } from "./lib/benchmark.js";
import { perCall } from "./lib/per-call.js";
import { documentedStack } from "./lib/stacks.js";

const CALLS = 1000;

// Each pair is the shape the code chose (floor) next to the obvious alternative, in isolation: the
// figures behind the "why" comments in packages/*/src, which name this benchmark instead of a number.
const CASE = {
  zodFloor: "zod: safeParse of invalid input, issues not read (floor)",
  zodError: "zod: safeParse of invalid input, then error.issues (builds the ZodError)",
  markerFloor: "outcome marker: object made from a prototype that carries it (floor)",
  markerDefine: "outcome marker: Object.defineProperty on each object",
  invokeFloor: "invoke: plain function returning promise.then(finish) (floor)",
  invokeWrapped: "invoke: async function awaiting the same promise.then(finish)",
  invokeAsync: "invoke: async function, await the pipeline then return finish()",
  rejectionFloor: "failing call: promise.then(ok, failed) (floor)",
  rejectionAwait: "failing call: await in try/catch",
  earlyFloor: "sync throw: rejected one microtask later, handler already attached (floor)",
  earlyNow: "sync throw: rejected at once, handler attached a microtask later",
  signalFloor: "attempt signal: none made until a tool reads it (floor)",
  signalController: "attempt signal: an AbortController per attempt",
  signalListener: "attempt signal: an AbortController and a listener on the caller's signal",
  timerFloor: "deadline: the shared timer already armed, ref() then unref() (floor)",
  timerPerCall: "deadline: setTimeout then clearTimeout per call",
  smallCall: "small result: the whole call through the documented stack (floor)",
  smallCount: "small result: countTokens of the JSON the model reads (o200k_base)",
} as const;

const MARKER = Symbol.for("needlework.bench.marker");
const PROTOTYPE: object = Object.create(Object.prototype, { [MARKER]: { value: true } });
const SETTLED = Promise.resolve();
const noop = (): void => undefined;
const finish = (value: unknown) => ({ status: "ok", data: value });
const pipeline = () => Promise.resolve(5);
const failing = () => Promise.reject(PREBUILT_ERROR);
const failed = (error: unknown) => ({ status: "error", error });
const callerSignal = new AbortController().signal;
const onAbort = { handleEvent: noop };

/** Milliseconds the first `countTokens` call of an encoding takes in this process: loading its rank table. */
function firstLoadMs(encoding: TokenEncoding): number {
  const start = performance.now();
  countTokens("warm", encoding);
  return performance.now() - start;
}

const loadMs: Partial<Record<TokenEncoding, number>> = {};

export default defineBenchmark({
  name: "design-choices",
  description:
    "Micro-costs behind design choices in the packages' hot paths, each measured against its alternative: zod's lazily built ZodError, a per-object marker property, an async invoke, await in try/catch on a failing call, a promise rejected before its handler is attached, and counting the tokens of a small result against the whole call. Also the one-time load of each tokenizer's rank table.",
  options: { time: 1000, iterations: 10, warmupTime: 250 },
  async cases() {
    // First, while nothing has loaded a tokenizer in this process (each benchmark file runs in its own).
    loadMs.o200k_base = firstLoadMs("o200k_base");
    loadMs.cl100k_base = firstLoadMs("cl100k_base");
    if (addSchema.safeParse(BAD_INPUT).success) throw new Error("BAD_INPUT must be invalid");
    const { tools } = documentedStack();
    const addCall = { name: "add", arguments: ADD_INPUT };
    const outcome = await tools.invoke(addCall);
    if (outcome.status !== "ok" || outcome.data !== 5) throw new Error("add must give 5");
    const smallJson = formatToolOutcome(outcome);
    const idleTimer = setTimeout(noop, 30_000).unref();
    return [
      perCall(CASE.zodFloor, CALLS, () => addSchema.safeParse(BAD_INPUT).success, { floor: true }),
      perCall(CASE.zodError, CALLS, () => addSchema.safeParse(BAD_INPUT).error?.issues.length),
      perCall(
        CASE.markerFloor,
        CALLS,
        () => {
          const outcome = Object.create(PROTOTYPE) as Record<string, unknown>;
          outcome.status = "ok";
          return outcome;
        },
        { floor: true },
      ),
      perCall(CASE.markerDefine, CALLS, () =>
        Object.defineProperty({ status: "ok" } as Record<PropertyKey, unknown>, MARKER, { value: true }),
      ),
      perCall(
        CASE.invokeFloor,
        CALLS,
        () => {
          try {
            return pipeline().then(finish);
          } catch (error) {
            return Promise.reject(error);
          }
        },
        { floor: true },
      ),
      perCall(CASE.invokeWrapped, CALLS, async () => await pipeline().then(finish)),
      perCall(CASE.invokeAsync, CALLS, async () => finish(await pipeline())),
      perCall(CASE.rejectionFloor, CALLS, () => failing().then(finish, failed), { floor: true }),
      perCall(CASE.rejectionAwait, CALLS, async () => {
        try {
          return finish(await failing());
        } catch (error) {
          return failed(error);
        }
      }),
      perCall(
        CASE.earlyFloor,
        CALLS,
        () =>
          new Promise<never>((_, reject) => {
            void SETTLED.then(() => reject(PREBUILT_ERROR));
          }).then(undefined, noop),
        { floor: true },
      ),
      perCall(CASE.earlyNow, CALLS, () => {
        const rejected = Promise.reject(PREBUILT_ERROR);
        return SETTLED.then(() => rejected.then(undefined, noop));
      }),
      perCall(CASE.signalFloor, CALLS, () => undefined, { floor: true }),
      perCall(CASE.signalController, CALLS, () => new AbortController().signal),
      perCall(CASE.signalListener, CALLS, () => {
        const controller = new AbortController();
        callerSignal.addEventListener("abort", onAbort);
        callerSignal.removeEventListener("abort", onAbort);
        return controller.signal;
      }),
      perCall(CASE.timerFloor, CALLS, () => idleTimer.ref().unref(), { floor: true }),
      perCall(CASE.timerPerCall, CALLS, () => clearTimeout(setTimeout(noop, 30_000))),
      perCall(CASE.smallCall, CALLS, () => tools.invoke(addCall), { floor: true }),
      perCall(CASE.smallCount, CALLS, () => countTokens(smallJson)),
    ];
  },
  measure(): Measurement[] {
    return (["o200k_base", "cl100k_base"] as const).map((encoding) => ({
      name: `tokenizer ${encoding}: first countTokens in the process (loads the rank table)`,
      ms: Number((loadMs[encoding] ?? Number.NaN).toFixed(1)),
    }));
  },
});
