import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { listing, newPaths, watchedRoots } from "./support/outside-writes.js";

it("names what appeared under a watched folder, two levels deep, and not the package managers' caches", () => {
  const home = mkdtempSync(join(tmpdir(), "needlework-outside-"));
  // A fake home folder stands for a watched root.
  try {
    mkdirSync(join(home, "app"));
    const before = new Set([...readAll(home)]);
    writeFileSync(join(home, "app", "dead-letters.jsonl"), "{}\n");
    mkdirSync(join(home, ".npm", "_cacache"), { recursive: true });
    mkdirSync(join(home, "crm-sync", "runs"), { recursive: true });
    expect(newPaths(before, readAll(home))).toEqual([
      join(home, "app", "dead-letters.jsonl"),
      join(home, "crm-sync"),
      join(home, "crm-sync", "runs"),
    ]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  expect(watchedRoots("/home/ana")).toEqual(expect.arrayContaining(["/var/lib", "/etc", "/home/ana"]));
});

/** Everything under `dir`, two levels deep, as the global setup lists a watched root. */
function readAll(dir: string): Set<string> {
  const paths = new Set<string>();
  for (const path of listing([dir], 2)) paths.add(path);
  return paths;
}
