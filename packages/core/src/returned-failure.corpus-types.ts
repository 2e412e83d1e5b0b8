// The kinds of entry in the returned-failure corpus (their own file: both corpus files import them).

/** A value that is data: the detector must not flag it. */
export interface LegitimateCase {
  readonly name: string;
  /** The real API or tool whose shape this is. */
  readonly source?: string;
  readonly value: unknown;
}

/** A value that is a failure: the detector must catch it with this code. */
export interface FailingCase {
  readonly name: string;
  /** The real API or tool whose shape this is. */
  readonly source?: string;
  readonly value: unknown;
  readonly code: string;
  readonly retriable: boolean;
}

/** A list with failed items: `partial`, the items (index and code) listed. */
export interface PartialCase {
  readonly name: string;
  /** The real API or tool whose shape this is. */
  readonly source?: string;
  readonly value: unknown;
  readonly failed: readonly { readonly index: number; readonly code: string; readonly id?: string | number }[];
}
