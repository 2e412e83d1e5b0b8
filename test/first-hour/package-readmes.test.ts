// Every package's tarball carries a README (npm packs README.md whatever `files` says) whose links work from
// node_modules: to the docs/ pages the package ships (its build copies them, `files` lists them), to an
// https address, or to an anchor in itself; never `../../docs`, which a tarball does not contain.
// docs/links.test.ts checks that each linked page and heading exists.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const packagesDir = fileURLToPath(new URL("../../packages", import.meta.url));
const packages = readdirSync(packagesDir).filter((name) => existsSync(join(packagesDir, name, "package.json")));

describe.each(packages)("packages/%s", (name) => {
  const readme = join(packagesDir, name, "README.md");

  it("has a README naming the package", () => {
    expect(existsSync(readme)).toBe(true);
    const { name: packageName } = JSON.parse(readFileSync(join(packagesDir, name, "package.json"), "utf8")) as {
      name: string;
    };
    expect(readFileSync(readme, "utf8").split("\n")[0]).toBe(`# ${packageName}`);
  });

  it("links only to the docs it ships, https addresses or anchors in itself", () => {
    const links = [...readFileSync(readme, "utf8").matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((link) => !/^(https:\/\/|#|docs\/[\w/-]+\.md(#[\w-]+)?$)/.test(link))).toEqual([]);
    const { files } = JSON.parse(readFileSync(join(packagesDir, name, "package.json"), "utf8")) as { files: string[] };
    expect(files).toContain("docs");
  });
});
