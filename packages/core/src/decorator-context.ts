/**
 * Telling the two decorator calling conventions apart. TypeScript's `experimentalDecorators` call a
 * method decorator as `(prototype, key, descriptor)` and a class decorator as `(class)`; standard
 * (TC39) decorators, which tsx, esbuild, Vite and Bun compile by default, call both as
 * `(value, context)` with `context.kind`. Every needlework decorator accepts both.
 * @internal
 */

/** Whether `value` is the `context` a standard decorator receives (of the given kind). */
function isContextOf(value: unknown, kind: string): boolean {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === kind;
}

/** Whether a method decorator was called the standard way, `(method, context)`. @internal */
export function isStandardMethodCall(second: unknown): second is ClassMethodDecoratorContext | DecoratorContext {
  return typeof second === "object" && second !== null && typeof (second as { kind?: unknown }).kind === "string";
}

/**
 * Checks the `context` of a class decorator: none (experimentalDecorators) or a standard class
 * context. Throws a `TypeError` naming the decorator when it is used on something other than a class.
 * @internal
 *
 * @example
 * ```ts
 * export function Marker() {
 *   return (target: ToolClass, context?: ClassDecoratorContext) => {
 *     checkClassDecoratorContext(context, "@Marker");
 *   };
 * }
 * ```
 */
export function checkClassDecoratorContext(context: unknown, decorator: string): void {
  if (context === undefined || isContextOf(context, "class")) return;
  const kind =
    typeof context === "object" && context !== null ? String((context as { kind?: unknown }).kind) : typeof context;
  throw new TypeError(`${decorator} decorates a class, not a ${kind}.`);
}
