import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { z } from "zod";

/** The arguments every case passes: the same object, so no case pays for building it. */
export const ADD_INPUT: { a: number; b: number } = { a: 2, b: 3 };
/** The same arguments as the JSON text a model sends. */
export const ADD_INPUT_JSON = JSON.stringify(ADD_INPUT);
/** Arguments that fail validation: `b` is a string. */
export const BAD_INPUT: Record<string, unknown> = { a: 2, b: "three" };
/** The same invalid arguments as JSON text. */
export const BAD_INPUT_JSON = JSON.stringify(BAD_INPUT);

/** One zod schema shared by needlework and the peers, so validation work is identical. */
export const addSchema = z.object({
  a: z.number().describe("First addend."),
  b: z.number().describe("Second addend."),
});

/** The tool body every framework wraps. */
export function add({ a, b }: { a: number; b: number }): number {
  return a + b;
}

/** What a failing tool throws: a plain TypeError, as a bug would. */
export function fail(): never {
  throw new TypeError("boom");
}

/**
 * One TypeError made once: throwing it costs no stack capture, which on the machine measured costs
 * 3 to 6 µs (it grows with the stack depth), so its rows show what the pipeline itself adds on the error path.
 */
export const PREBUILT_ERROR = new TypeError("boom");

// No constructor parameters: tsx (esbuild) emits no design:paramtypes, so tsyringe could not inject any.
/** The needlework side: the same body as a decorated tool class. */
@AgentFunctionGroup()
export class AddTools {
  @AgentFunction({ description: "Adds two numbers.", input: addSchema })
  add(args: { a: number; b: number }): number {
    return add(args);
  }

  @AgentFunction({ description: "Always throws a TypeError.", input: addSchema })
  fail(): never {
    return fail();
  }

  @AgentFunction({ description: "Always throws the same, prebuilt TypeError.", input: addSchema })
  failPrebuilt(): never {
    throw PREBUILT_ERROR;
  }
}
