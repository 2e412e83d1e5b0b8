// The user docs every package ships in its tarball (`docs/`), so that what a package prints or links to
// (a build diagnostic, an ESLint rule's URL, its README) names a page that is on the reader's disk.
// Called by each package's build (tsup.package.ts); the copy is git-ignored, like dist/.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** Folders of docs/ that are not user pages: the docs check, the site's config, generated output. */
const NOT_SHIPPED = new Set(["doc-check", ".vitepress", "reference", "images", "public", "node_modules"]);

/** The user pages under docs/ (Markdown only), relative to docs/. */
export function userPages(docsDir = join(repoRoot, "docs")): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!NOT_SHIPPED.has(entry.name)) walk(join(dir, entry.name));
      } else if (entry.name.endsWith(".md")) pages.push(relative(docsDir, join(dir, entry.name)));
    }
  };
  walk(docsDir);
  return pages.sort();
}

/**
 * A page as shipped: a relative link (or image) whose target is not shipped becomes its plain text, so
 * no link in a tarball points at a file that is not in it. Absolute addresses and anchors stay.
 */
export function shippedPage(page: string, markdown: string, shipped: ReadonlySet<string>): string {
  return markdown.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, bang: string, text: string, target: string) => {
    if (/^[a-z]+:/i.test(target) || target.startsWith("#")) return whole;
    const file = join(dirname(page), target.split("#")[0]!);
    if (shipped.has(file)) return whole;
    return bang ? `(picture: ${text})` : text;
  });
}

/**
 * Writes the user pages into `<packageDir>/docs`, replacing what was there. `images` also copies
 * docs/images (the inspector's screenshots; only @needlework/inspector needs them).
 *
 * @example
 * copyPackageDocs("packages/workflows"); // packages/workflows/docs/build-diagnostics.md, ...
 */
export function copyPackageDocs(packageDir: string, { images = false } = {}): void {
  const docsDir = join(repoRoot, "docs");
  const target = join(packageDir, "docs");
  rmSync(target, { recursive: true, force: true });
  const pages = userPages(docsDir);
  const shipped = new Set(pages);
  if (images) for (const picture of readdirSync(join(docsDir, "images"))) shipped.add(join("images", picture));
  for (const page of pages) {
    mkdirSync(dirname(join(target, page)), { recursive: true });
    writeFileSync(join(target, page), shippedPage(page, readFileSync(join(docsDir, page), "utf8"), shipped));
  }
  if (images) cpSync(join(docsDir, "images"), join(target, "images"), { recursive: true });
}
