import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeCrm, resumeAgent } from "../../../test/resume-contract.js";
import { FileRunStore } from "./file-run-store.js";
import { aesGcmCodec } from "./payload-codec.js";

const CANARY = "sk-proj-CODECcanary0123456789abcdefghijk";

describe("aesGcmCodec", () => {
  it("round-trips text, with a fresh IV per value, from bytes, hex or base64 keys", async () => {
    const bytes = randomBytes(32);
    for (const key of [bytes, bytes.toString("hex"), bytes.toString("base64")]) {
      const codec = aesGcmCodec(key);
      const a = await codec.encode(`hello ${CANARY} \u0000 é`);
      const b = await codec.encode(`hello ${CANARY} \u0000 é`);
      expect(a).not.toBe(b);
      expect(a).not.toContain(CANARY);
      expect(await codec.decode(a)).toBe(`hello ${CANARY} \u0000 é`);
    }
  });

  it("rotates: a ring encodes with its current key and still decodes what an older key wrote", async () => {
    const k1 = randomBytes(32);
    const k2 = randomBytes(32);
    const old = await aesGcmCodec({ current: "k1", keys: { k1 } }).encode("written in May");
    const ring = aesGcmCodec({ current: "k2", keys: { k1, k2 } });
    expect(await ring.decode(old)).toBe("written in May");
    const fresh = await ring.encode("written in November");
    expect(fresh.split(".")[1]).toBe("k2");
    await expect(
      Promise.resolve().then(() => aesGcmCodec({ current: "k1", keys: { k1 } }).decode(fresh)),
    ).rejects.toMatchObject({
      code: "PAYLOAD_UNREADABLE",
    });
  });

  it("refuses altered values and wrong keys with clear errors and no key material", async () => {
    const key = randomBytes(32);
    const codec = aesGcmCodec(key);
    const sealed = await codec.encode("payload");
    const altered = `${sealed.slice(0, -2)}AA`;
    const failure = await Promise.resolve()
      .then(() => codec.decode(altered))
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: "PAYLOAD_UNREADABLE" });
    expect(String((failure as Error).message)).not.toContain(key.toString("hex"));
    expect(() => aesGcmCodec(randomBytes(16))).toThrow(/32 bytes/);
    expect(() => aesGcmCodec({ current: "k9", keys: { k1: key } })).toThrow(/current key "k9"/);
  });

  it("with FileRunStore: no payload canary in any file; runs and dead letters read back decoded", async () => {
    const directory = await mkdtemp(join(tmpdir(), "nw-codec-"));
    const store = new FileRunStore(directory, { codec: aesGcmCodec(randomBytes(32)) });
    const steps = [{ toolCalls: [{ name: "upsertContact", arguments: { id: CANARY } }] }, { text: `Done ${CANARY}` }];
    const result = await resumeAgent(new FakeCrm(), store, steps).agent.run(`Sync ${CANARY}.`, {
      runId: "run_codec_1",
    });
    expect(result.status).toBe("completed");
    await store.deadLetters.append({
      runId: "run_codec_1",
      agent: "crm-sync",
      tool: "upsertContact",
      arguments: { id: CANARY },
      errorCode: "FORBIDDEN",
      callIds: ["c1"],
      outcomes: [{ message: CANARY }],
      time: new Date().toISOString(),
      reason: "Failed 3 times with FORBIDDEN for the same arguments.",
    });
    const files = await readdir(directory, { recursive: true });
    for (const file of files) {
      const text = await readFile(join(directory, file), "utf8").catch(() => "");
      expect(text, file).not.toContain(CANARY);
    }
    const run = await store.journal.read("run_codec_1");
    expect(run?.input).toBe(`Sync ${CANARY}.`);
    expect(run?.calls[0]?.arguments).toEqual({ id: CANARY });
    expect(run?.calls[0]?.outcome?.outcome).toMatchObject({ status: "ok", data: { id: CANARY } });
    expect((await store.deadLetters.list())[0]).toMatchObject({
      arguments: { id: CANARY },
      outcomes: [{ message: CANARY }],
    });
    const stored = await resumeAgent(new FakeCrm(), store, []).agent.resumeRun("run_codec_1");
    expect(stored.text).toBe(`Done ${CANARY}`);
  });
});
