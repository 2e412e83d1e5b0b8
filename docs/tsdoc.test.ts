// Every export of every public entry point has TSDoc: the API reference (docs/reference/) is generated
// from it, so an export without a comment is an empty entry there. The message names each one and its file.
import { expect, it } from "vitest";
import { apiEntries, apiExports } from "../scripts/api-entries.js";

it("every export of every public entry point has a TSDoc summary", () => {
  const exports = apiExports(apiEntries());
  expect(exports.size).toBeGreaterThanOrEqual(18);
  const missing = [...exports].flatMap(([specifier, names]) =>
    names.filter((e) => e.summary === "").map((e) => `${specifier}: \`${e.name}\` (${e.file}:${e.line}) has no TSDoc`),
  );
  expect(missing, `add a /** ... */ comment saying what each is:\n${missing.join("\n")}`).toEqual([]);
}, 300_000);
