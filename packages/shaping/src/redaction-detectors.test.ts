import { describe, expect, it } from "vitest";
import { createRedactor } from "./create-redactor.js";
import { ibanValid, luhnValid } from "./redaction-checks.js";
import { BUILT_IN_DETECTORS, DETECTOR_NAMES, type DetectorName } from "./redaction-detectors.js";

const { redactText } = createRedactor();
const only = (name: DetectorName) => createRedactor({ detectors: [name], redactFieldNames: false }).redactText;

describe("checksums", () => {
  it("Luhn accepts test card numbers and rejects near misses and repeated digits", () => {
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("5500005555555559")).toBe(true);
    expect(luhnValid("378282246310005")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(luhnValid("0000000000000000")).toBe(false);
  });

  it("IBAN needs the country's length and the mod-97 check", () => {
    expect(ibanValid("DE89370400440532013000")).toBe(true);
    expect(ibanValid("GB82WEST12345698765432")).toBe(true);
    expect(ibanValid("DE89370400440532013001")).toBe(false);
    expect(ibanValid("DE8937040044053201300")).toBe(false);
    expect(ibanValid("ZZ89370400440532013000")).toBe(false);
  });
});

describe("built-in detectors", () => {
  it("run in a fixed, documented order", () => {
    expect(DETECTOR_NAMES).toEqual([
      "private_key",
      "jwt",
      "bearer_token",
      "api_key",
      "secret_assignment",
      "email",
      "iban",
      "card",
      "ssn",
      "phone",
    ]);
  });

  it("private key blocks, including encrypted PEM headers and a block cut before its END line", () => {
    const pem =
      "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\nMIIEowIBAAKCAQEAx4+/abc=\n-----END RSA PRIVATE KEY-----";
    expect(only("private_key")(`key:\n${pem}\ndone`)).toBe("key:\n[REDACTED:private_key]\ndone");
    expect(only("private_key")("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA")).toBe(
      "[REDACTED:private_key]",
    );
    expect(only("private_key")("-----BEGIN PUBLIC KEY-----\nMIIBIjANBg\n-----END PUBLIC KEY-----")).toContain(
      "MIIBIjANBg",
    );
  });

  it("JWTs, but not a base64 run without the two dots", () => {
    const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    expect(only("jwt")(`auth ${token}.`)).toBe("auth [REDACTED:jwt].");
    expect(only("jwt")("eyJhbGciOiJIUzI1NiJ9 only a header")).toBe("eyJhbGciOiJIUzI1NiJ9 only a header");
  });

  it("bearer and basic credentials, keeping the scheme, but not prose", () => {
    expect(only("bearer_token")("Authorization: Bearer abc123def456ghi789")).toBe(
      "Authorization: Bearer [REDACTED:bearer_token]",
    );
    expect(only("bearer_token")("Authorization: Basic dXNlcjpwYXNzd29yZA==")).toBe(
      "Authorization: Basic [REDACTED:bearer_token]",
    );
    expect(only("bearer_token")("Basic authentication is enabled.")).toBe("Basic authentication is enabled.");
  });

  it("API keys of common providers", () => {
    const keys = [
      "sk-proj-Ab3dEfGhIjKlMnOpQrStUvWx",
      "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
      "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
      "AKIAIOSFODNN7EXAMPLE",
      "xoxb-1234567890-0987654321-AbCdEfGhIjKl",
      "AIzaSyA1234567890abcdefghijklmnopqrstuv",
      "glpat-abcdefghij0123456789",
      "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    ];
    for (const key of keys) expect(only("api_key")(`use ${key} now`), key).toBe("use [REDACTED:api_key] now");
    expect(only("api_key")("task-management-system-overview and desk-research")).toBe(
      "task-management-system-overview and desk-research",
    );
  });

  it("secret assignments keep the name and drop the value", () => {
    expect(only("secret_assignment")("login user=bob password=hunter2&next=/")).toBe(
      "login user=bob password=[REDACTED:secret]&next=/",
    );
    expect(only("secret_assignment")('{"api_key": "abc123xyz", "max_tokens": 2000}')).toBe(
      '{"api_key": "[REDACTED:secret]", "max_tokens": 2000}',
    );
    expect(only("secret_assignment")("DB_PASSWORD: s3cr3t")).toBe("DB_PASSWORD: [REDACTED:secret]");
  });

  it("email addresses, trimming a trailing dot, but not things with an @ that are no address", () => {
    expect(only("email")("Write to jane.doe+tag@mail.example.co.uk.")).toBe("Write to [REDACTED:email].");
    expect(only("email")("@mention, user@localhost, a@b, x@.com, ops@@example.com")).toBe(
      "@mention, user@localhost, a@b, x@.com, ops@@example.com",
    );
  });

  it("IBANs with valid checksums, with or without spaces", () => {
    expect(only("iban")("pay DE89 3704 0044 0532 0130 00 today")).toBe("pay [REDACTED:iban] today");
    expect(only("iban")("GB82WEST12345698765432")).toBe("[REDACTED:iban]");
    expect(only("iban")("DE89 3704 0044 0532 0130 01")).toBe("DE89 3704 0044 0532 0130 01");
  });

  it("card numbers that pass Luhn; random digit runs stay", () => {
    expect(only("card")("card 4111 1111 1111 1111, 4111-1111-1111-1111 or 4111111111111111")).toBe(
      "card [REDACTED:card], [REDACTED:card] or [REDACTED:card]",
    );
    expect(only("card")("amex 3782 822463 10005")).toBe("amex [REDACTED:card]");
    expect(only("card")("order 1234567812345678 and 4111111111111112")).toBe(
      "order 1234567812345678 and 4111111111111112",
    );
    expect(only("card")("id 41111111111111110000")).toBe("id 41111111111111110000");
  });

  it("US social security numbers, not impossible ones", () => {
    expect(only("ssn")("SSN 123-45-6789.")).toBe("SSN [REDACTED:ssn].");
    expect(only("ssn")("000-12-3456 666-12-3456 123-00-4567 123-45-0000")).toBe(
      "000-12-3456 666-12-3456 123-00-4567 123-45-0000",
    );
  });

  it("phone numbers, not dates, IPs, amounts or bare digit runs", () => {
    for (const number of [
      "+1 415 555 2671",
      "(415) 555-2671",
      "415-555-2671",
      "415.555.2671",
      "+44 20 7946 0958",
      "+14155552671",
      "01 23 45 67 89",
    ]) {
      expect(only("phone")(`call ${number} now`), number).toBe("call [REDACTED:phone] now");
    }
    const keep = "on 2024-01-15 10:30 from 192.168.100.200, total 1 000 000 000, order 4155552671, v1.2.3";
    expect(only("phone")(keep)).toBe(keep);
    expect(only("phone")("item 2 (415) 555-2671")).toBe("item 2 [REDACTED:phone]");
  });

  it("all together on mixed text", () => {
    const text =
      "Jane <jane@corp.example>, card 4111 1111 1111 1111, SSN 123-45-6789, phone +1 415 555 2671, key sk-proj-Ab3dEfGhIjKlMnOpQrStUvWx.";
    expect(redactText(text)).toBe(
      "Jane <[REDACTED:email]>, card [REDACTED:card], SSN [REDACTED:ssn], phone [REDACTED:phone], key [REDACTED:api_key].",
    );
  });
});

describe("the card and phone detectors", () => {
  it("give the right result when called again from within mark (each call reads with its own ring)", () => {
    for (const [name, text, number] of [
      ["card", "pay 4111 1111 1111 1111 or 5500 0055 5555 5559", "4111111111111111"],
      ["phone", "call 415-555-2671 or (415) 555-2672", "+1 415 555 2671"],
    ] as const) {
      const detector = BUILT_IN_DETECTORS.find((d) => d.name === name)!;
      const inner: string[] = [];
      const out = detector.apply(text, () => {
        inner.push(detector.apply(`x ${number} y`, () => "[Y]"));
        return "[X]";
      });
      expect(out, name).toMatch(/^[a-z]+ \[X\] or \[X\]$/);
      expect(inner, name).toEqual(["x [Y] y", "x [Y] y"]);
    }
  });
});

describe("the phone detector on adversarial digits", () => {
  // Its speed on such text is measured in bench/ (redaction-adversarial), not here.
  it("finds a number after spaced single digits, and none in them", () => {
    const phone = BUILT_IN_DETECTORS.find((d) => d.name === "phone")!;
    const spaced = "1 ".repeat(200_000);
    expect(phone.apply(spaced, () => "[X]")).toBe(spaced);
    expect(phone.apply("call 1 2 3 4 5 6 7 8 9 or (415) 555-2671", () => "[X]")).toBe("call 1 2 3 4 5 6 7 8 9 or [X]");
  });
});
