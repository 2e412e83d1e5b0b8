import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** One fenced TypeScript block of a Markdown page. */
export interface DocBlock {
  /** The page, relative to the repository root. */
  readonly file: string;
  /** The 1-based line of the block's first code line in the page. */
  readonly line: number;
  /** The words after the language in the info string (`no-check`, ...). */
  readonly flags: readonly string[];
  readonly code: string;
  /**
   * What the page says the block prints: the ```text output block that immediately follows it (only
   * blank lines between), undefined when none does. `outputLine` is its first line in the page.
   */
  readonly output?: string;
  readonly outputLine?: number;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)(.*)$/;

/** A fenced block opening at line `at`: its language, the words after it, its body and its closing line. */
function readFence(lines: readonly string[], at: number) {
  const open = FENCE.exec(lines[at]!);
  if (!open) return undefined;
  const [, indent = "", fence = "", lang = "", rest = ""] = open;
  const closing = new RegExp(`^\\s*${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
  const body: string[] = [];
  let end = at + 1;
  for (; end < lines.length && !closing.test(lines[end]!); end++) {
    const line = lines[end]!;
    body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
  }
  return { lang, flags: rest.trim().split(/\s+/).filter(Boolean), body: body.join("\n"), end };
}

/**
 * The ```ts / ```typescript blocks of a Markdown text, with their position. Blocks indented in a
 * list lose their indentation. A ```text output block right after a block (only blank lines between)
 * is its `output`.
 */
export function extractTsBlocks(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = readFence(lines, i);
    if (!fence) continue;
    const start = i;
    i = fence.end;
    if (fence.lang !== "ts" && fence.lang !== "typescript") continue;
    const block: DocBlock = { file, line: start + 2, flags: fence.flags, code: fence.body };
    let next = fence.end + 1;
    while (next < lines.length && lines[next]!.trim() === "") next++;
    const output = next < lines.length ? readFence(lines, next) : undefined;
    blocks.push(
      output?.lang === "text" && output.flags.includes("output")
        ? { ...block, output: output.body, outputLine: next + 2 }
        : block,
    );
  }
  return blocks;
}

/** Folders under docs/ that hold no written pages: generated output and the site's build. */
const GENERATED = new Set(["docs/reference/api", "docs/.vitepress", "docs/public"]);

/** README.md and every written Markdown page under docs/ (not the generated API reference), relative to `root`. */
export function docPages(root: string): string[] {
  const pages = ["README.md"];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!GENERATED.has(relative(root, path)) && entry.name !== "node_modules") walk(path);
      } else if (entry.name.endsWith(".md")) pages.push(relative(root, path));
    }
  };
  walk(join(root, "docs"));
  return pages.sort();
}

/** Every TypeScript block of the README and docs/, page by page. */
export function collectDocBlocks(root: string): DocBlock[] {
  return docPages(root).flatMap((page) => extractTsBlocks(page, readFileSync(join(root, page), "utf8")));
}

function bindingNames(name: ts.BindingName, into: string[]): void {
  if (ts.isIdentifier(name)) into.push(name.text);
  else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bindingNames(element.name, into);
}

/** A top-level declaration of a block: an import of one name, a class, a const, ... */
interface Declaration {
  readonly names: readonly string[];
  readonly text: string;
  /** The identifiers its code refers to (not in strings or comments, not property names). */
  readonly refers?: ReadonlySet<string>;
  /** Imports mention no other names (their text is a module path), so they are never left out for it. */
  readonly isImport?: true;
}

/**
 * The top-level declarations of a block, in order: each import split into one line per name (a bare
 * `import "x"` declares nothing but is kept), and every class, function, interface, type, enum and
 * variable statement. Other statements (calls, `await`, `console.log`) are not declarations.
 */
function declarationsOf(source: ts.SourceFile): Declaration[] {
  const out: Declaration[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const from = statement.moduleSpecifier.getText(source);
      const clause = statement.importClause;
      if (!clause) {
        out.push({ names: [], text: `import ${from};`, isImport: true });
        continue;
      }
      const type = clause.isTypeOnly ? "type " : "";
      if (clause.name)
        out.push({
          names: [clause.name.text],
          text: `import ${type}${clause.name.text} from ${from};`,
          isImport: true,
        });
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings))
        out.push({
          names: [bindings.name.text],
          text: `import ${type}* as ${bindings.name.text} from ${from};`,
          isImport: true,
        });
      if (bindings && ts.isNamedImports(bindings))
        for (const e of bindings.elements)
          out.push({
            names: [e.name.text],
            text: `import ${type}{ ${e.getText(source)} } from ${from};`,
            isImport: true,
          });
      continue;
    }
    const names: string[] = [];
    if (ts.isVariableStatement(statement))
      for (const d of statement.declarationList.declarations) bindingNames(d.name, names);
    else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    )
      names.push(statement.name.text);
    // Comments before a declaration stay with it (getFullText), so decorators and TSDoc come along.
    if (names.length > 0)
      out.push({ names, text: statement.getFullText(source).replace(/^\s*\n/, ""), refers: referencesOf(statement) });
  }
  return out;
}

/** The identifiers a statement's code uses: property names (`a.name`, `{ name: 1 }`, members) aside. */
function referencesOf(statement: ts.Node): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const parent = node.parent;
      const propertyName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isPropertyAssignment(parent) && parent.name === node) ||
        ((ts.isPropertyDeclaration(parent) ||
          ts.isMethodDeclaration(parent) ||
          ts.isPropertySignature(parent) ||
          ts.isMethodSignature(parent)) &&
          parent.name === node);
      if (!propertyName) names.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(statement);
  return names;
}

const mentions = (d: Declaration, name: string): boolean => d.refers?.has(name) ?? false;

/**
 * The code to compile for each block: the block, preceded by the top-level declarations of the same
 * page's earlier blocks (imports, classes, consts, ...), so a page reads as one program. Of several
 * declarations of one name only the latest counts (the block's own first), and an earlier
 * declaration that mentions a name declared again later is left out with it. `prefixLines` is how
 * many lines were put in front, to map errors back to the page.
 */
export function withPageContext(blocks: readonly DocBlock[]): { block: DocBlock; code: string; prefixLines: number }[] {
  const earlier = new Map<string, Declaration[]>();
  return blocks.map((block) => {
    const source = ts.createSourceFile("block.ts", block.code, ts.ScriptTarget.ES2022, true);
    const own = declarationsOf(source);
    const before = earlier.get(block.file) ?? [];
    earlier.set(block.file, [...before, ...own]);

    // Where each name is declared last: in this block (Infinity) or in the latest earlier declaration.
    const last = new Map<string, number>();
    before.forEach((d, i) => d.names.forEach((n) => last.set(n, i)));
    for (const d of own) for (const n of d.names) last.set(n, Infinity);
    const keep = before.map((d, i) => d.names.every((n) => last.get(n) === i));
    const bare = new Set<string>(own.filter((d) => d.names.length === 0).map((d) => d.text));
    before.forEach((d, i) => {
      if (d.names.length === 0) keep[i] = !bare.has(d.text) && before.findIndex((e) => e.text === d.text) === i;
    });
    // A name imported again the same way (the same import line) means the same thing: what mentions it stays.
    const importText = new Map<string, Set<string>>();
    for (const d of [...before, ...own]) {
      for (const n of d.names) {
        const texts = importText.get(n) ?? new Set<string>();
        texts.add(d.isImport ? d.text : `\u0000${d.text}`);
        importText.set(n, texts);
      }
    }
    const sameImport = (name: string) => {
      const texts = importText.get(name);
      return texts !== undefined && texts.size === 1 && !texts.values().next().value!.startsWith("\u0000");
    };
    // Leave out what mentions a name whose kept declaration comes later (or is gone), until stable.
    for (let changed = true; changed; ) {
      changed = false;
      before.forEach((d, i) => {
        if (!keep[i] || d.isImport) return;
        for (const [name, at] of last) {
          if (d.names.includes(name) || sameImport(name)) continue;
          const gone = at !== Infinity && !keep[at];
          if ((at > i || gone) && mentions(d, name)) {
            keep[i] = false;
            changed = true;
            return;
          }
        }
      });
    }
    const prefix = before.filter((_, i) => keep[i]).map((d) => d.text.trimEnd());
    const text = prefix.join("\n");
    return {
      block,
      code: prefix.length === 0 ? block.code : `${text}\n${block.code}`,
      prefixLines: prefix.length === 0 ? 0 : text.split("\n").length,
    };
  });
}
