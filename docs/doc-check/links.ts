// The link check: every link of the README, CONTRIBUTING.md, docs/ and the package READMEs leads
// somewhere that exists, anchors included.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { headingText, slugify } from "./slug.js";

/** One link of a page, with its line. */
export interface PageLink {
  readonly page: string;
  readonly line: number;
  readonly target: string;
}

/** Addresses known not to exist: the project has no public repository or site yet. */
const NONEXISTENT = [/^https?:\/\/github\.com\/needlework\//i, /^https?:\/\/(www\.)?needlework\.(dev|io|org)\b/i];

/** The page's lines with those of fenced code blocks (fences included) blanked, so line numbers hold. */
function outsideFences(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split("\n").map((line) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (open) {
      if (!fence) fence = open[1]!;
      else if (line.trim().startsWith(fence)) fence = undefined;
      return "";
    }
    return fence ? "" : line;
  });
}

/** The Markdown links and images of a page (inline `[text](target)` and reference definitions). */
export function linksOf(page: string, markdown: string): PageLink[] {
  const links: PageLink[] = [];
  // Code spans are code, not links.
  outsideFences(markdown).forEach((raw, i) => {
    const line = raw.replace(/`+[^`]*`+/g, "");
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ page, line: i + 1, target: m[1]! });
    const definition = /^\s*\[[^\]]+\]:\s*(\S+)/.exec(line);
    if (definition) links.push({ page, line: i + 1, target: definition[1]! });
    for (const m of line.matchAll(/<a\s[^>]*href="([^"]+)"/g)) links.push({ page, line: i + 1, target: m[1]! });
  });
  return links;
}

/** The anchors of a Markdown page's headings (GitHub's rule, which the docs site follows too). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  // A heading's code spans are part of its anchor.
  for (const line of outsideFences(markdown)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) anchors.add(slugify(headingText(heading[1]!), seen));
    for (const m of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

/**
 * Why a link is broken ("page:line: ..."), or undefined when it leads somewhere. `resolvePage` maps a
 * relative target to a file (the package READMEs link to `docs/...`, the pages each package ships).
 */
export function brokenLink(
  root: string,
  link: PageLink,
  resolveFile: (page: string, path: string) => string = (page, path) => join(dirname(page), path),
): string | undefined {
  const where = `${link.page}:${link.line}`;
  const { target } = link;
  if (NONEXISTENT.some((pattern) => pattern.test(target)))
    return `${where}: ${target} does not exist (needlework has no public repository or site): link the page in docs/ instead`;
  if (/^(https?|mailto):/i.test(target)) return undefined;
  if (/^[a-z]+:/i.test(target)) return `${where}: ${target}: only https:, mailto: and relative links`;
  const [path = "", anchor] = target.split("#") as [string, string | undefined];
  const file = path === "" ? link.page : resolveFile(link.page, decodeURIComponent(path));
  const absolute = join(root, file);
  if (!existsSync(absolute)) return `${where}: ${target}: no file ${relative(root, absolute) || "."}`;
  if (anchor === undefined || anchor === "") return undefined;
  if (statSync(absolute).isDirectory() || !absolute.endsWith(".md"))
    return `${where}: ${target}: an anchor on a file that is not a Markdown page`;
  if (!anchorsOf(readFileSync(absolute, "utf8")).has(anchor))
    return `${where}: ${target}: ${file} has no heading whose anchor is #${anchor}`;
  return undefined;
}
