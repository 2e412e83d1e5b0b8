import type { TSESTree } from "@typescript-eslint/utils";
import { relative } from "node:path";
import { findDecorator, moduleNames, optionsObject, propertyOf, staticString } from "../ast.js";
import { createRule } from "../create-rule.js";
import { type DeclaredAgentSite, programDeclarations } from "../program-scan.js";
import { typeInfo } from "../type-info.js";

/** `needlework/unique-agent-name`: two `@Agent`s with one name (NW008). */
export const uniqueAgentName = createRule({
  name: "unique-agent-name",
  meta: {
    type: "problem",
    docs: {
      description: "Disallow two @Agent declarations with the same name",
      buildDiagnostic: "NW008",
    },
    schema: [],
    messages: {
      duplicate:
        "Agent name '{{name}}' is already declared at {{where}}: factory.createAgent(\"{{name}}\") must mean one agent, and buildAgentFactory() refuses two (NW008). Give this one another `name`.",
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    const types = typeInfo(context);
    const program = types?.program;
    const fileName = types ? types.fileName : context.physicalFilename;
    /** Agents of this file seen so far, for projects without type information. */
    const local = new Map<string, number>();
    const check = (node: TSESTree.ClassDeclaration | TSESTree.ClassExpression): void => {
      const agent = findDecorator(node.decorators, "Agent", names);
      const options = agent && optionsObject(context, agent);
      const nameNode = options && propertyOf(options, "name")?.value;
      const name = staticString(nameNode);
      if (!nameNode || name === undefined) return;
      let first: Pick<DeclaredAgentSite, "fileName" | "line"> | undefined;
      if (program) {
        // The first declaration in program order (files as the program lists them, then position) is the original.
        const sites = programDeclarations(program).agents.filter((a) => a.name === name);
        const original = sites[0];
        const isOriginal = !original || (original.fileName === fileName && original.position === nameNode.range[0]);
        if (!isOriginal && sites.length > 1) first = original;
      } else {
        const line = local.get(name);
        if (line !== undefined) first = { fileName, line };
        else local.set(name, nameNode.loc.start.line);
      }
      if (!first) return;
      const where =
        first.fileName === fileName
          ? `line ${first.line}`
          : `${relative(context.cwd, first.fileName).replaceAll("\\", "/")}:${first.line}`;
      context.report({ node: nameNode, messageId: "duplicate", data: { name, where } });
    };
    return { ClassDeclaration: check, ClassExpression: check };
  },
});
