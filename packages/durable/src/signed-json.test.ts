// A checkpoint is the signed, serialized journal of a paused run: its signature must survive being
// stored as text and catch any change, and a key other than the signer's must not pass.
import { describe, expect, it } from "vitest";
import { checkJsonSignature, signJson } from "./signed-json.js";

const key = new Uint8Array(32).fill(1);

describe("signed JSON", () => {
  it("verifies a signed body after a round trip through text, whatever its key order", () => {
    const { signature, ...body } = signJson({ runId: "r1", journal: { turns: [1, 2] }, at: new Date(0) }, key);
    const stored = JSON.parse(JSON.stringify({ journal: body.journal, at: body.at, runId: body.runId }));
    expect(checkJsonSignature(stored, signature, key)).toBe("valid");
  });

  it("says mismatch when the body was altered or signed with another key, unsigned without a signature", () => {
    const { signature, ...body } = signJson({ runId: "r1", amount: 5 }, key);
    expect(checkJsonSignature({ ...body, amount: 500 }, signature, key)).toBe("mismatch");
    expect(checkJsonSignature(body, signature, new Uint8Array(32).fill(2))).toBe("mismatch");
    for (const unsigned of [undefined, "", "abc", signature.toUpperCase()])
      expect(checkJsonSignature(body, unsigned, key)).toBe("unsigned");
  });
});
