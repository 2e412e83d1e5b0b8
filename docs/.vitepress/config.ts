// The docs site: VitePress over docs/ (`npx -y pnpm@10 docs` serves it, `docs:build` builds it into
// docs/.vitepress/dist). The navigation is the one list in sidebar.ts; the API reference is generated
// by scripts/api-reference.ts into docs/reference/api/ before the build.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { type DefaultTheme, defineConfig, type MarkdownRenderer } from "vitepress";
import { slugify } from "../doc-check/slug.js";
import { SECTIONS, sectionPages } from "./sidebar.js";

const docsDir = fileURLToPath(new URL("..", import.meta.url));

/** A page's title: its first `# ` heading, else its file name. */
function titleOf(page: string): string {
  const file = join(docsDir, page);
  const heading = existsSync(file) ? /^# (.+)$/m.exec(readFileSync(file, "utf8"))?.[1] : undefined;
  return (heading ?? page).replace(/`/g, "");
}

/** The site path of a page (README.md is its folder's index, as the rewrites below make it). */
const route = (page: string): string => `/${page.replace(/(^|\/)README\.md$/, "$1").replace(/(index)?\.md$/, "")}`;

function apiSidebar(): DefaultTheme.SidebarItem[] {
  const file = join(docsDir, "reference", "api", "typedoc-sidebar.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as DefaultTheme.SidebarItem[]) : [];
}

function sidebar(): DefaultTheme.SidebarItem[] {
  const sections: DefaultTheme.SidebarItem[] = SECTIONS.map((section) => ({
    text: section.text,
    collapsed: section.collapsed ?? false,
    items: sectionPages(section).map((page) => ({ text: titleOf(page), link: route(page) })),
  }));
  sections.push({ text: "API reference", collapsed: true, items: apiSidebar() });
  return sections;
}

/**
 * Links that leave docs/ (to the repository's examples, sources, CONTRIBUTING.md) have no page on the
 * site: they are shown as their text, so the site has no address that does not exist.
 */
function linksOutOfDocsAsText(md: MarkdownRenderer): void {
  md.core.ruler.push("links-out-of-docs", (state) => {
    const page = (state.env as { relativePath?: string }).relativePath ?? "";
    for (const block of state.tokens) {
      if (block.type !== "inline" || !block.children) continue;
      const kept: typeof block.children = [];
      const dropped: number[] = [];
      for (const token of block.children) {
        if (token.type === "link_open") {
          const href = token.attrGet("href") ?? "";
          const outside =
            !/^[a-z]+:|^#|^\//i.test(href) && normalize(join(dirname(page), href.split("#")[0]!)).startsWith("..");
          dropped.push(outside ? 1 : 0);
          if (outside) continue;
        } else if (token.type === "link_close" && dropped.pop() === 1) continue;
        kept.push(token);
      }
      block.children = kept;
    }
  });
}

export default defineConfig({
  title: "needlework",
  description: "A TypeScript framework for the tools that LLM agents call.",
  lang: "en",
  head: [["link", { rel: "icon", type: "image/svg+xml", href: "/favicon.svg" }]],
  cleanUrls: true,
  // The docs check, the API generator's sidebar data and the packages' copies are not pages.
  srcExclude: ["doc-check/**", "**/node_modules/**"],
  rewrites: { "README.md": "index.md", "eslint/README.md": "eslint/index.md" },
  // Every link between pages must resolve (VitePress fails the build on a dead one).
  ignoreDeadLinks: false,
  lastUpdated: false,
  markdown: {
    anchor: { slugify: (text: string) => slugify(text) },
    config: linksOutOfDocsAsText,
  },
  themeConfig: {
    nav: [
      { text: "Getting started", link: "/getting-started" },
      { text: "Guides", link: "/declaring-tools" },
      { text: "API reference", link: "/reference/" },
      { text: "Troubleshooting", link: "/troubleshooting" },
    ],
    sidebar: sidebar(),
    search: { provider: "local" },
    outline: { level: [2, 3] },
    docFooter: { prev: "Previous", next: "Next" },
  },
  vite: {
    // The site never needs the packages' sources: only Markdown and the theme.
    server: { fs: { allow: [docsDir] } },
  },
});
