import { describe, expect, it } from "vitest";
import { UNTRUSTED_SPAN_LENGTH, untrustedArguments } from "./untrusted-arguments.js";

const mail = {
  from: "billing@acme.example",
  body: "Invoice INV-77. Please transfer 1,250.00 EUR to IBAN DE44500105175407324931 by Friday. Thanks, the Acme billing team and friends",
};

describe("untrustedArguments", () => {
  it("flags values found in an untrusted result and nowhere the user or a trusted tool gave them", () => {
    const sources = { trusted: ["Pay the invoice in my mail."], untrusted: [mail] };
    expect(untrustedArguments({ iban: "DE44500105175407324931", amount: 1250, note: "rent" }, sources)).toEqual([
      "iban",
      "amount",
    ]);
  });

  it("does not flag a value the user typed, even when the untrusted text holds it too", () => {
    const sources = { trusted: ["Send 1250 EUR to DE44500105175407324931."], untrusted: [mail] };
    expect(untrustedArguments({ iban: "DE44500105175407324931", amount: 1250 }, sources)).toEqual([]);
  });

  it("compares case- and space-insensitively, whole tokens only, and numbers as numbers", () => {
    const sources = { trusted: [], untrusted: ["Contact  BILLING@acme.example about order 77."] };
    expect(untrustedArguments({ to: "billing@ACME.example" }, sources)).toEqual(["to"]);
    // "acme" is a token of the text; "acm" is not.
    expect(untrustedArguments({ a: "acm", b: "ACME" }, sources)).toEqual(["b"]);
    expect(untrustedArguments({ n: "77", m: 77.0, k: 7 }, sources)).toEqual(["n", "m"]);
  });

  it(`flags a long argument holding a span of ${UNTRUSTED_SPAN_LENGTH} characters copied from untrusted text`, () => {
    const sources = { trusted: [], untrusted: [mail] };
    const body = "Hi Bob, forwarding this: Please transfer 1,250.00 EUR to IBAN DE445 soon.";
    expect(untrustedArguments({ body, subject: "Fwd" }, sources)).toEqual(["body"]);
    // A span the user's input also holds is theirs.
    const typed = "Please transfer 1,250.00 EUR to IBAN DE44500105175407324931 by Friday.";
    expect(untrustedArguments({ body }, { trusted: [typed], untrusted: [mail] })).toEqual([]);
  });

  it("looks inside arrays and objects, and leaves values the model made up alone", () => {
    const sources = { trusted: [], untrusted: [{ participants: ["dana@client.example"] }] };
    expect(
      untrustedArguments({ who: ["me@home.example", "dana@client.example"], title: "Follow-up", ok: true }, sources),
    ).toEqual(["who"]);
    expect(untrustedArguments("not an object", sources)).toEqual([]);
  });
});

describe("untrustedArguments: lookalike values", () => {
  const IBAN = "DE44500105175407324931";
  const printed = {
    grouped: "DE44 5001 0517 5407 3249 31",
    hyphenated: "DE44-5001-0517-5407-3249-31",
    dotted: "DE44.5001.0517.5407.3249.31",
    "zero-width spaced": "DE44\u200B5001\u200B0517\u200B5407\u200B3249\u200B31",
    "non-breaking spaced": "DE44\u00A05001\u00A00517\u00A05407\u00A03249\u00A031",
    "en-dashed": "DE44\u20135001\u20130517\u20135407\u20133249\u201331",
  };
  for (const [how, text] of Object.entries(printed)) {
    it(`an IBAN printed ${how} is the IBAN the model copies without separators, and the reverse`, () => {
      const mail = { body: `Please pay 250.00 EUR to IBAN ${text} by Friday.` };
      expect(untrustedArguments({ iban: IBAN }, { trusted: [], untrusted: [mail] })).toEqual(["iban"]);
      expect(untrustedArguments({ iban: IBAN.toLowerCase() }, { trusted: [], untrusted: [mail] })).toEqual(["iban"]);
      expect(untrustedArguments({ iban: text }, { trusted: [], untrusted: [`Pay ${IBAN}.`] })).toEqual(["iban"]);
      // The user's own IBAN, however either side prints it, stays theirs.
      expect(untrustedArguments({ iban: IBAN }, { trusted: [`Send it to ${text}.`], untrusted: [mail] })).toEqual([]);
      expect(untrustedArguments({ iban: text }, { trusted: [`Send it to ${IBAN}.`], untrusted: [mail] })).toEqual([]);
    });
  }

  it("matches whole tokens only, and not values shorter than six characters", () => {
    const sources = { trusted: [], untrusted: ["Meet at the Berlinale, room 12-34, code AB-12."] };
    expect(untrustedArguments({ city: "Berlin", room: "1234", code: "ab12" }, sources)).toEqual([]);
    expect(untrustedArguments({ place: "the berlinale" }, sources)).toEqual(["place"]);
  });
});
