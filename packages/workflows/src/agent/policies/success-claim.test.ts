import { describe, expect, it } from "vitest";
import { claimsSuccess } from "./success-claim.js";

describe("claimsSuccess (the default guardrail detector)", () => {
  it.each([
    "Sync complete.",
    "Completed all five updates",
    "Success!",
    "It was successful",
    "Updated successfully.",
    "All done",
    "all   DONE here",
  ])("flags %j as a success claim", (text) => expect(claimsSuccess(text)).toBe(true));

  it.each([
    "3 of 5 contacts failed with FORBIDDEN; 2 were updated.",
    "Incomplete: three writes failed.",
    "The sync is not complete: 3 writes failed.",
    "The update wasn't fully successful.",
    "The update wasn’t successful.",
    "Only partially completed.",
    "Completion is blocked.",
    "unsuccessful attempt",
  ])("does not flag %j", (text) => expect(claimsSuccess(text)).toBe(false));

  it("still flags a claim later in a text that also negates one", () => {
    expect(claimsSuccess("Step one is not complete. Everything else: success.")).toBe(true);
  });
});
