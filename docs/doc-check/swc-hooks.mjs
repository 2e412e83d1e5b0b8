// Loaded with `node --import` by the docs check to run doc programs as a user's tsc/swc build would: each .ts
// file is compiled by swc with legacy decorators and decorator metadata. Nothing else is preloaded: no
// reflect-metadata, so a program that imports tsyringe before reflect-metadata fails here as it would for a user.
import { registerHooks } from "node:module";
import { transformSync } from "@swc/core";

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      // `./order-tools.js` written in TypeScript sources names the .ts file next to it.
      if (/^\.{1,2}\//.test(specifier) && specifier.endsWith(".js"))
        return nextResolve(specifier.replace(/\.js$/, ".ts"), context);
      throw error;
    }
  },
  load(url, context, nextLoad) {
    if (!url.startsWith("file:") || !url.endsWith(".ts") || url.endsWith(".d.ts")) return nextLoad(url, context);
    const { source } = nextLoad(url, { ...context, format: "module-typescript" });
    const { code } = transformSync(String(source), {
      filename: new URL(url).pathname,
      sourceMaps: "inline",
      jsc: {
        parser: { syntax: "typescript", decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: "es2022",
      },
      module: { type: "es6" },
    });
    return { format: "module", source: code, shortCircuit: true };
  },
});
