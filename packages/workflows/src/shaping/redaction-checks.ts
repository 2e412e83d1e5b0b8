// The checksums live in core beside the detectors that use them.
export { IBAN_LENGTHS, ibanValid, luhnValid } from "@needlework/core/internal";
