// The detectors live in core (`@needlework/core/internal`), which scrubs failure messages with them
// by default; redaction of data (`usingRedaction()`) builds on the same detectors.
export { DETECTOR_NAMES, type DetectorName } from "@needlework/core";
export { BUILT_IN_DETECTORS, type Mark, type TextDetector } from "@needlework/core/internal";
