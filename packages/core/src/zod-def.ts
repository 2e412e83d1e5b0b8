/** The part of a zod v4 schema's `_zod.def` the argument checks read: its `type` and its fields. @internal */
export interface ZodDefLike {
  readonly type: string;
  readonly [key: string]: unknown;
}

/**
 * A zod schema's definition, or `undefined` for anything else. @internal
 *
 * @example
 * ```ts
 * defOf(z.string())?.type; // "string"
 * ```
 */
export function defOf(schema: unknown): ZodDefLike | undefined {
  return (schema as { _zod?: { def?: ZodDefLike } } | undefined)?._zod?.def;
}
