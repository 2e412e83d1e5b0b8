import { NeedleworkError, type NeedleworkErrorOptions } from "./errors.js";

/**
 * Thrown when an options object passed to needlework (a plugin's, an agent's, a client's) holds a
 * value that cannot work. `option` is the dotted path of the offending key (`retry.maxAttempts`)
 * and `value` what was given, so a caller can report it without parsing the message.
 *
 * @example
 * ```ts
 * try { factoryBuilder.usingResilience({ retry: { maxAttempts: 0 } }); }
 * catch (e) { if (e instanceof InvalidOptionError) console.error(e.option, e.value); } // "retry.maxAttempts", 0
 * ```
 */
export class InvalidOptionError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_InvalidOptionError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(InvalidOptionError, "name", { value: "InvalidOptionError" });
  }
  /** Dotted path of the option, starting below the options object (`retry.maxAttempts`). */
  readonly option: string;
  /** The value that was given for it; for an option holding a credential (`checkpointSecret`), `[REDACTED:secret]`. */
  readonly value: unknown;

  constructor(option: string, value: unknown, message: string, options: NeedleworkErrorOptions = {}) {
    super("INVALID_OPTION", message, options);
    this.option = option;
    this.value = value;
  }
}
