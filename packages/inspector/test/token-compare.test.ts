// Issue 53: the token check must not tell an attacker the token's length. Every comparison the
// inspector makes goes through `timingSafeEqual`; this test records each call (a wrapper over the
// real function) and checks that a token of any length, right or wrong, takes the same path: one
// comparison of two fixed-length digests.
import { randomBytes } from "node:crypto";
import { InMemoryRunStore } from "@needlework/workflows";
import { afterAll, describe, expect, it, vi } from "vitest";
import { type Inspector, startInspector } from "../src/index.js";

const compared: [number, number][] = [];
vi.mock("node:crypto", async (original) => {
  const real = await original<typeof import("node:crypto")>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([a.byteLength, b.byteLength]);
      return real.timingSafeEqual(a, b);
    },
  };
});

const opened: Inspector[] = [];
afterAll(async () => {
  for (const inspector of opened) await inspector.close();
});

describe("the inspector's token check", () => {
  it("compares fixed-length digests for a token of every length, right or wrong", async () => {
    const token = randomBytes(24).toString("base64url"); // 32 characters
    const inspector = await startInspector({ store: new InMemoryRunStore(), port: 0, token });
    opened.push(inspector);
    const asked = async (given: string) => {
      compared.length = 0;
      const response = await fetch(new URL("/api/runs", inspector.url), {
        headers: { authorization: `Bearer ${given}` },
      });
      await response.arrayBuffer();
      return { status: response.status, compared: [...compared] };
    };
    const lengths = [1, 8, 16, 31, 32, 33, 64, 500];
    for (const length of lengths) {
      const wrong = "x".repeat(length);
      const { status, compared: calls } = await asked(wrong);
      expect(status, `a wrong token of ${length} characters`).toBe(401);
      // One comparison, of two 32-byte digests, whatever the length given.
      expect(calls, `a wrong token of ${length} characters`).toEqual([[32, 32]]);
    }
    // A token of the right length differing in its last character: the same path.
    const nearly = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    expect(await asked(nearly)).toEqual({ status: 401, compared: [[32, 32]] });
    expect(await asked(token)).toEqual({ status: 200, compared: [[32, 32]] });
  });
});
