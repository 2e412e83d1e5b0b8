/**
 * Replaces a detected secret: returns the marker (`[REDACTED:email]`), or the secret itself when the
 * allow-list accepts it.
 * @internal
 */
export type Mark = (secret: string) => string;

/** One text detector: rewrites `text`, calling `mark` for each secret it finds. @internal */
export interface TextDetector {
  readonly name: string;
  /** The name in the marker, `[REDACTED:<label>]`. */
  readonly label: string;
  readonly apply: (text: string, mark: Mark) => string;
}
