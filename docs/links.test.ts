import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { copyPackageDocs, userPages } from "../scripts/package-docs.js";
import { docPages } from "./doc-check/extract.js";
import { anchorsOf, brokenLink, linksOf } from "./doc-check/links.js";
import { slugify } from "./doc-check/slug.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const api = join(root, "docs", "reference", "api");

/** Pages whose links are checked: README, CONTRIBUTING, every page under docs/ (generated ones aside). */
const pages = [...docPages(root), "CONTRIBUTING.md"].filter((page) => !page.startsWith("docs/reference/api/"));
const packageReadmes = readdirSync(join(root, "packages"))
  .map((name) => `packages/${name}/README.md`)
  .filter((page) => existsSync(join(root, page)));

describe("links", () => {
  it("reads anchors as GitHub and the docs site make them", () => {
    expect(slugify("Truncation: `usingTruncation(options)`")).toBe("truncation-usingtruncationoptions");
    expect(slugify("Durable runs (bench/src/durable-runs.bench.ts)")).toBe("durable-runs-benchsrcdurable-runsbenchts");
    expect([...anchorsOf("# A\n## Vite 8 and Vitest 5\n```\n# not a heading\n```\n## A\n")]).toEqual([
      "a",
      "vite-8-and-vitest-5",
      "a-1",
    ]);
    expect(linksOf("p.md", "see [x](a.md#b) and `[y](not-a-link)`\n```\n[z](code)\n```\n[r]: ./r.md")).toEqual([
      { page: "p.md", line: 1, target: "a.md#b" },
      { page: "p.md", line: 5, target: "./r.md" },
    ]);
    expect(brokenLink(root, { page: "README.md", line: 1, target: "docs/getting-started.md#no-such-heading" })).toMatch(
      /has no heading whose anchor is #no-such-heading/,
    );
  });

  it("every link of the README, CONTRIBUTING.md and docs/ leads to a file and heading that exist", () => {
    const broken = pages
      .flatMap((page) => linksOf(page, readFileSync(join(root, page), "utf8")))
      // Links into the generated API reference are checked once it is generated (docs:build runs it).
      .filter((link) => existsSync(api) || !/reference\/api\//.test(link.target))
      .map((link) => brokenLink(root, link))
      .filter((problem) => problem !== undefined);
    expect(broken, broken.join("\n")).toEqual([]);
  });

  // A README is read from the tarball (node_modules, the registry's page): its relative links name the
  // docs/ pages every package ships (copied from the repository's docs/ at build, scripts/package-docs.ts).
  it("every link of a package README leads to a page its tarball ships, or to an https address", () => {
    const broken = packageReadmes
      .flatMap((page) => linksOf(page, readFileSync(join(root, page), "utf8")))
      .map((link) => {
        if (!/^(https?:|#|docs\/)/.test(link.target))
          return `${link.page}:${link.line}: ${link.target}: a README links to docs/<page>.md (shipped in the package) or to https`;
        return brokenLink(root, link, (page, path) => (path.startsWith("docs/") ? path : join(page, "..", path)));
      })
      .filter((problem) => problem !== undefined);
    expect(broken, broken.join("\n")).toEqual([]);
  });

  it("the pages a package ships link only to pages it ships (links to the rest become their text)", () => {
    const packageDir = mkdtempSync(join(tmpdir(), "needlework-docs-"));
    try {
      copyPackageDocs(packageDir);
      const shipped = userPages(join(packageDir, "docs")).map((page) => `docs/${page}`);
      expect(shipped).toContain("docs/build-diagnostics.md");
      expect(shipped).toContain("docs/eslint/require-inject.md");
      const broken = shipped
        .flatMap((page) => linksOf(page, readFileSync(join(packageDir, page), "utf8")))
        .map((link) => brokenLink(packageDir, link))
        .filter((problem) => problem !== undefined)
        .map((problem) => problem.replace(relative("/", packageDir), "<package>"));
      expect(broken, broken.join("\n")).toEqual([]);
    } finally {
      rmSync(packageDir, { recursive: true, force: true });
    }
  });
});
