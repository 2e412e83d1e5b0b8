import type { ZodChain } from "../ast.js";
import { createRule } from "../create-rule.js";
import { inputFieldListeners } from "../input-fields.js";
import { toolNameOf } from "./tool-name.js";

/**
 * Zod bases whose JSON Schema is outside OpenAI's strict subset, with why (as `strictFallbackReasons` words it).
 * Intersections are not judged: zod writes two objects' intersection as one object (strict), and only
 * other shapes as `allOf`, which the build reports (NW009).
 */
const BASES: Record<string, string> = {
  date: "has no type (z.date() gives {}); use z.iso.datetime() or a string with a format",
  any: "has no type (z.any() gives {})",
  unknown: "has no type (z.unknown() gives {})",
  tuple: "is a tuple (prefixItems); use an object",
  record: "is an open object (z.record gives additionalProperties); strict mode needs closed objects",
  looseObject: "is an open object (additionalProperties); strict mode needs closed objects",
  url: "uses format 'uri', which OpenAI strict mode does not support",
};
for (const format of ["cuid", "cuid2", "ulid", "nanoid", "base64", "base64url", "emoji", "jwt"])
  BASES[format] = `uses format '${format}', which OpenAI strict mode does not support`;

/** String bases, whose .min()/.max()/.length() give minLength/maxLength. */
const STRINGS = new Set(["string", "email", "uuid", "url", "ipv4", "ipv6", "iso.datetime", "iso.date", "iso.time"]);
const LENGTH = "uses minLength/maxLength, which OpenAI strict mode does not support (check the length in the tool)";

/** Methods that move a field outside the subset. */
const METHODS: Record<string, string> = {
  optional: "is optional (use .nullable() instead of .optional(): strict mode needs every field required)",
  default: "has a default, which makes it optional (use .nullable() instead)",
  nullish: "is optional (.nullish()); use .nullable()",
  passthrough: "is an open object (.passthrough()); strict mode needs closed objects",
  loose: "is an open object (.loose()); strict mode needs closed objects",
  catchall: "is an open object (.catchall()); strict mode needs closed objects",
  url: "uses format 'uri', which OpenAI strict mode does not support",
};

/** Every reason a field's schema is not strict, in chain order. */
function reasons(chain: ZodChain): string[] {
  const out: string[] = [];
  const base = BASES[chain.base];
  if (base) out.push(base);
  for (const method of chain.methods) {
    const reason = Object.hasOwn(METHODS, method.name) ? METHODS[method.name] : undefined;
    if (reason && !out.includes(reason)) out.push(reason);
    const isLength = ["min", "max", "length", "nonempty"].includes(method.name);
    if (isLength && STRINGS.has(chain.base) && !out.includes(LENGTH)) out.push(LENGTH);
  }
  return out;
}

/** `needlework/strict-schema`: an input schema outside OpenAI's strict subset (NW009). */
export const strictSchema = createRule({
  name: "strict-schema",
  meta: {
    type: "suggestion",
    docs: {
      description: "Report input fields that keep a tool out of OpenAI's strict mode, with the reason",
      buildDiagnostic: "NW009",
    },
    schema: [],
    messages: {
      notStrict:
        "Input field '{{field}}' of tool '{{tool}}' {{reason}}: toOpenAITools sends this tool without `strict: true` (NW009).",
    },
  },
  defaultOptions: [],
  create(context) {
    return inputFieldListeners(
      context,
      (field, tool) => {
        for (const reason of field.chain ? reasons(field.chain) : [])
          context.report({
            node: field.property,
            messageId: "notStrict",
            data: { field: field.path, tool: toolNameOf(tool), reason },
          });
      },
      { arrayItems: true },
    );
  },
});
