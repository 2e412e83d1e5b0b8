import { describe, expect, it } from "vitest";
import { runOrderLookup } from "./main.js";

describe("examples/order-lookup", () => {
  it("prints what the model read for each call, and the turn survives the tool's exception", async () => {
    const lines: string[] = [];
    const result = await runOrderLookup((line) => lines.push(line));
    const read = lines.filter((l) => l.includes("model read:"));
    expect(read).toHaveLength(4);
    expect(read[0]).toContain(
      'model read: {"status":"ok","retriable":false,"data":{"orderId":"ORD-12345","status":"shipped","carrier":"DHL"}}',
    );
    expect(read[1]).toContain(
      '"error_code":"ORDER_NOT_FOUND","retriable":false,"message":"Order \'ORD-999\' not found","suggestion":"Verify the ID with the customer or list recent orders."',
    );
    expect(read[2]).toContain('"error_code":"INVALID_ARGUMENTS"');
    expect(read[2]).toContain("orderId: expected string, received number");
    expect(read[3]).toContain(
      '"error_code":"UNHANDLED_ERROR","retriable":false,"message":"An unexpected error occurred (SyntaxError). The call was not retried."',
    );
    // The exception's own text (the broken JSON row) never reaches the model.
    expect(read[3]).not.toContain("position");
    expect(lines.join("\n")).toContain(
      'run_health {"tools_ok":1,"tools_failed":2,"tools_not_called":1,"blocking_failure":true}',
    );
    expect(lines).toContain("  run status: completed_with_failures after 2 model turns (1 ok, 2 failed, 1 not called)");
    expect(lines.at(-1)).toMatch(
      /^ {2}without usingToolResultMiddleware\(\): run\(\) rejects with SyntaxError: .+; the turn is lost$/,
    );
    expect(result).toMatchObject({ status: "completed_with_failures", iterations: 2, silentFailure: false });
  });
});
