/*
 * Type information, when there is some. ESLintUtils.getParserServices throws when a file was parsed
 * without typescript-eslint's services (a `.js` file under ESLint's own parser, another parser, a
 * file outside every tsconfig): a rule that called it crashed ESLint on such a file. The rules read
 * the services through here instead, and report nothing they would need the program for.
 */
import type { ParserServicesWithTypeInformation, TSESLint, TSESTree } from "@typescript-eslint/utils";
import type ts from "typescript";

type Context = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

/** The program and the maps between ESTree and TypeScript nodes, for a file parsed with type information. */
export interface TypeInfo {
  readonly program: ts.Program;
  readonly services: ParserServicesWithTypeInformation;
  /** The program's own name for the linted file (it may spell the path differently from ESLint). */
  readonly fileName: string;
}

/**
 * The linted file's type information, or `undefined` when it was parsed without a program: the
 * rule then reports only what one file shows, or nothing.
 *
 * @example
 * const types = typeInfo(context);
 * if (!types) return {}; // nothing to say without the program
 */
export function typeInfo(context: Context): TypeInfo | undefined {
  // `parserServices` is `{}` under espree and absent under some parsers; typescript-eslint's parser
  // gives `program: null` when it has no project for the file.
  const services = (context.sourceCode as { parserServices?: Partial<ParserServicesWithTypeInformation> })
    .parserServices;
  const program = services?.program;
  if (!services || !program || !services.esTreeNodeToTSNodeMap || !services.tsNodeToESTreeNodeMap) return undefined;
  const root = services.esTreeNodeToTSNodeMap.get(context.sourceCode.ast as TSESTree.Program);
  const fileName = root ? root.getSourceFile().fileName : context.physicalFilename;
  return { program, services: services as ParserServicesWithTypeInformation, fileName };
}
