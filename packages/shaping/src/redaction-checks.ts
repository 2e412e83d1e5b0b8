// The checksums live in core beside the detectors that use them.
export { ibanValid, luhnValid } from "@needlework/core";
export { IBAN_LENGTHS } from "@needlework/core/internal";
