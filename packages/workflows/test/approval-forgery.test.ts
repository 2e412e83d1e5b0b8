import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe } from "vitest";
import { FileRunStore } from "@needlework/durable";
import { InMemoryRunStore } from "@needlework/durable";
import { approvalForgeryContract } from "./approval-forgery-contract.js";

describe("forged approvals: InMemoryRunStore", () => {
  approvalForgeryContract(async () => {
    const store = new InMemoryRunStore();
    return { first: store, second: store };
  });
});

const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

describe("forged approvals: FileRunStore", () => {
  approvalForgeryContract(async () => {
    const directory = await mkdtemp(join(tmpdir(), "nw-forgery-"));
    directories.push(directory);
    return { first: new FileRunStore(directory), second: new FileRunStore(directory) };
  });
});
