import { ConstantBackoff } from "cockatiel";
import { RunStoreError } from "@needlework/durable";
import { describe, expect, it } from "vitest";
import { STORE_ATTEMPTS, withStoreRetry } from "./store-errors.js";

const pgError = (code: string): Error => Object.assign(new Error(`driver says ${code}`), { code });
const noWait = new ConstantBackoff(0);

/** A statement that fails with `errors` in turn, then resolves "ok"; counts its attempts. */
function flaky(...errors: Error[]) {
  let attempts = 0;
  const statement = async (): Promise<string> => {
    const error = errors[attempts++];
    if (error) throw error;
    return "ok";
  };
  return { statement, attempts: () => attempts };
}

describe("withStoreRetry", () => {
  it("retries a serialization failure and a refused connection, then succeeds", async () => {
    const { statement, attempts } = flaky(pgError("40001"), pgError("ECONNREFUSED"));
    await expect(withStoreRetry("writing", false, statement, noWait)).resolves.toBe("ok");
    expect(attempts()).toBe(3);
  });

  it("a conflict that outlasts the retries is STORE_CONFLICT, with the driver error as cause only", async () => {
    const { statement, attempts } = flaky(...Array.from({ length: 5 }, () => pgError("40P01")));
    const error = await withStoreRetry("recording a tool outcome", true, statement, noWait).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "RunStoreError", code: "STORE_CONFLICT" });
    expect((error as Error).message).toContain("recording a tool outcome conflicted");
    expect((error as Error).message).not.toContain("driver says");
    expect(attempts()).toBe(STORE_ATTEMPTS);
  });

  it("a connection broken mid-statement is retried only for idempotent statements", async () => {
    const once = flaky(pgError("ECONNRESET"));
    await expect(withStoreRetry("recording a run start", false, once.statement, noWait)).rejects.toMatchObject({
      code: "STORE_UNAVAILABLE",
    });
    expect(once.attempts()).toBe(1);
    const idempotent = flaky(pgError("ECONNRESET"));
    await expect(withStoreRetry("recording a turn", true, idempotent.statement, noWait)).resolves.toBe("ok");
    expect(idempotent.attempts()).toBe(2);
  });

  it("other driver errors become STORE_FAILED with their SQLSTATE (never the driver's message), not retried", async () => {
    const violation = Object.assign(pgError("22P05"), { message: "unsupported Unicode escape: secret-canary" });
    const { statement, attempts } = flaky(violation);
    const failed = await withStoreRetry("writing", true, statement, noWait).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(RunStoreError);
    expect(failed).toMatchObject({ code: "STORE_FAILED", cause: violation });
    expect((failed as Error).message).toContain("22P05");
    expect((failed as Error).message).not.toContain("secret-canary");
    expect(attempts()).toBe(1);
  });

  it("a missing table or schema (42P01, 3F000) is STORE_NOT_MIGRATED naming migrate(), not retried", async () => {
    for (const code of ["42P01", "3F000"]) {
      const { statement, attempts } = flaky(pgError(code));
      const failed = await withStoreRetry("listing runs", true, statement, noWait).catch((e: unknown) => e);
      expect(failed).toMatchObject({ name: "RunStoreError", code: "STORE_NOT_MIGRATED" });
      expect((failed as Error).message).toContain("store.migrate()");
      expect((failed as Error).message).not.toContain("driver says");
      expect(attempts()).toBe(1);
    }
  });
});
