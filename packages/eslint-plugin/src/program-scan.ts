/*
 * What the whole program declares, for the rules that need more than one file: the function groups
 * `@AgentFunctionGroup` names and the agents `@Agent` declares. Read once per TypeScript program
 * (the project service hands the same program to every file until one changes).
 */
import ts from "typescript";

/** An `@Agent({ name })` somewhere in the program. */
export interface DeclaredAgentSite {
  readonly name: string;
  readonly fileName: string;
  /** 1-based line of the `name` value. */
  readonly line: number;
  /** Offset of the `name` value in its file. */
  readonly position: number;
}

/** What the program's source files declare. */
export interface ProgramDeclarations {
  readonly groups: ReadonlySet<string>;
  /** False when some `@AgentFunctionGroup` names its groups in a way that cannot be read statically. */
  readonly groupsComplete: boolean;
  readonly agents: readonly DeclaredAgentSite[];
}

const cache = new WeakMap<ts.Program, ProgramDeclarations>();

/** The call of a decorator named `name` (`@Name(...)` or `@ns.Name(...)`), or `undefined`. @internal */
export function decoratorCall(decorator: ts.Decorator, name: string): ts.CallExpression | undefined {
  const e = decorator.expression;
  if (!ts.isCallExpression(e)) return undefined;
  const callee = e.expression;
  const calleeName = ts.isIdentifier(callee)
    ? callee.text
    : ts.isPropertyAccessExpression(callee)
      ? callee.name.text
      : undefined;
  return calleeName === name ? e : undefined;
}

/** The text of a string literal (or a template without substitutions), or `undefined`. @internal */
export function stringOf(node: ts.Node | undefined): string | undefined {
  return node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
}

/** The value of `key: ...` (or `"key": ...`) written in an object literal, or `undefined`. @internal */
export function propertyValue(object: ts.ObjectLiteralExpression, key: string): ts.Expression | undefined {
  for (const p of object.properties) {
    if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === key)
      return p.initializer;
  }
  return undefined;
}

/** Group names of an `@AgentFunctionGroup(...)` argument, or `undefined` when they cannot be read. */
function groupNames(argument: ts.Expression | undefined): string[] | undefined {
  if (!argument) return [];
  const single = stringOf(argument);
  if (single !== undefined) return [single];
  const list = ts.isObjectLiteralExpression(argument) ? propertyValue(argument, "groups") : argument;
  if (ts.isObjectLiteralExpression(argument) && list === undefined)
    return argument.properties.some(ts.isSpreadAssignment) ? undefined : [];
  if (!list || !ts.isArrayLiteralExpression(list)) return undefined;
  const names = list.elements.map(stringOf);
  return names.every((n) => n !== undefined) ? (names as string[]) : undefined;
}

/** The program's function groups and declared agents (installed packages and .d.ts files are not read). */
export function programDeclarations(program: ts.Program): ProgramDeclarations {
  const known = cache.get(program);
  if (known) return known;
  const groups = new Set<string>();
  const agents: DeclaredAgentSite[] = [];
  let groupsComplete = true;
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || program.isSourceFileFromExternalLibrary(file)) continue;
    // Cheap test first: most files declare neither.
    if (!file.text.includes("AgentFunctionGroup") && !file.text.includes("@Agent")) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
        for (const decorator of ts.getDecorators(node) ?? []) {
          const group = decoratorCall(decorator, "AgentFunctionGroup");
          if (group) {
            const found = groupNames(group.arguments[0]);
            if (found) for (const g of found) groups.add(g);
            else groupsComplete = false;
          }
          const agent = decoratorCall(decorator, "Agent");
          const options = agent?.arguments[0];
          if (options && ts.isObjectLiteralExpression(options)) {
            const nameNode = propertyValue(options, "name");
            const name = stringOf(nameNode);
            if (nameNode && name !== undefined) {
              const position = nameNode.getStart(file);
              agents.push({
                name,
                fileName: file.fileName,
                line: file.getLineAndCharacterOfPosition(position).line + 1,
                position,
              });
            }
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  const declarations = { groups, groupsComplete, agents };
  cache.set(program, declarations);
  return declarations;
}

/** One module a source file loads, in the order of its import (and `export ... from`) declarations. */
export interface LoadedModule {
  readonly specifier: string;
  /** The program source file it resolves to, for the program's own modules. */
  readonly fileName: string | undefined;
  /** Offset of the declaration in its file. */
  readonly position: number;
}

interface ImportGraph {
  readonly loads: ReadonlyMap<string, readonly LoadedModule[]>;
  /** Source files some other source file of the program imports. */
  readonly imported: ReadonlySet<string>;
}

const graphs = new WeakMap<ts.Program, ImportGraph>();

/** What each source file of the program loads, and which files are imported by another (read once per program). */
export function importGraph(program: ts.Program): ImportGraph {
  const known = graphs.get(program);
  if (known) return known;
  const options = program.getCompilerOptions();
  const cache = ts.createModuleResolutionCache(program.getCurrentDirectory(), (f) => f, options);
  const ownFiles = new Set(
    program
      .getSourceFiles()
      .filter((f) => !f.isDeclarationFile && !program.isSourceFileFromExternalLibrary(f))
      .map((f) => f.fileName),
  );
  const loads = new Map<string, LoadedModule[]>();
  const imported = new Set<string>();
  for (const file of program.getSourceFiles()) {
    if (!ownFiles.has(file.fileName)) continue;
    const list: LoadedModule[] = [];
    for (const statement of file.statements) {
      let specifier: ts.Expression | undefined;
      if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly)
        specifier = statement.moduleSpecifier;
      else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) specifier = statement.moduleSpecifier;
      if (!specifier || !ts.isStringLiteral(specifier)) continue;
      const name = specifier.text;
      let fileName: string | undefined;
      if (!isBareName(name)) {
        const mode = ts.getModeForUsageLocation(file, specifier, options);
        const resolved = ts.resolveModuleName(name, file.fileName, options, ts.sys, cache, undefined, mode)
          .resolvedModule?.resolvedFileName;
        if (resolved && ownFiles.has(resolved)) fileName = resolved;
      }
      // Path aliases (`@/app`) look bare: try them too, keeping them only when they land in the program.
      if (fileName === undefined && isBareName(name) && options.paths) {
        const resolved = ts.resolveModuleName(name, file.fileName, options, ts.sys, cache).resolvedModule
          ?.resolvedFileName;
        if (resolved && ownFiles.has(resolved)) fileName = resolved;
      }
      if (fileName !== undefined && fileName !== file.fileName) imported.add(fileName);
      list.push({ specifier: name, fileName, position: statement.getStart(file) });
    }
    loads.set(file.fileName, list);
  }
  const graph = { loads, imported };
  graphs.set(program, graph);
  return graph;
}

/** A package name (`tsyringe`, `@needlework/core`, `node:fs`) rather than a path. */
function isBareName(name: string): boolean {
  return !name.startsWith(".") && !name.startsWith("/") && !/^[a-zA-Z]:[\\/]/.test(name);
}
