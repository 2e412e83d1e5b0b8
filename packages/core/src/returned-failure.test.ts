import { describe, expect, it } from "vitest";
import { detectFailure } from "./returned-failure.js";
import { failing, legitimate, partial } from "./returned-failure.corpus.js";

describe("detectFailure: the corpus", () => {
  it("holds at least 30 legitimate values", () => {
    expect(legitimate.length).toBeGreaterThanOrEqual(30);
  });

  it.each(legitimate.map((c) => [c.name, c.value] as const))("%s stays data", (_name, value) => {
    expect(detectFailure(value)).toBeUndefined();
  });

  it.each(failing.map((c) => [c.name, c] as const))("%s is caught", (_name, c) => {
    const failure = detectFailure(c.value);
    expect(failure).toMatchObject({ code: c.code, retriable: c.retriable });
    expect(failure?.message).toEqual(expect.any(String));
  });

  it.each(partial.map((c) => [c.name, c] as const))("%s lists its failed items", (_name, c) => {
    const failure = detectFailure(c.value);
    expect(failure?.code).toBe("PARTIAL_FAILURE");
    expect(
      failure?.items?.map(({ index, code, id }) => ({ index, code, ...(id === undefined ? {} : { id }) })),
    ).toEqual(c.failed);
    for (const item of c.failed) expect(failure?.message).toContain(item.code);
  });
});

describe("detectFailure: what the model reads", () => {
  it("a short, plain detail is added to the fixed text", () => {
    expect(detectFailure({ ok: false, error: "Contact is locked by another user" })?.message).toBe(
      "The tool returned a failure. Detail: Contact is locked by another user.",
    );
    expect(detectFailure({ success: false, message: "Monthly export quota exceeded" })?.message).toBe(
      "The tool returned a failure. Detail: Monthly export quota exceeded.",
    );
    expect(detectFailure({ status: 403, statusText: "Forbidden", error: "Scope crm.write missing" })).toMatchObject({
      code: "FORBIDDEN",
      message: "Permission denied by the upstream service (HTTP 403). Detail: Scope crm.write missing.",
    });
  });

  it.each([
    ["a stack frame", "TypeError: x is undefined at Object.<anonymous> (/srv/app/index.js:12:3)"],
    ["an exception prefix", "SQLException: relation users does not exist"],
    ["a file path", "cannot open /etc/app/secrets.yaml"],
    ["a URL", "GET https://internal.example/api?token=abc failed"],
    ["an address", "connect ECONNREFUSED 10.0.3.7:5432"],
    ["a Node error code", "request failed with ECONNRESET"],
    ["SQL", "duplicate key: insert into users (email) values ('a')"],
    ["a secret", "login failed: password=hunter2"],
    ["an email", "no account for jane.doe@example.com"],
    ["several lines", "first line\nsecond line"],
    ["JSON", '{"upstream":"said no"}'],
    ["a long text", "x ".repeat(120)],
  ])("a detail with %s is left out; the value stays the tool's data", (_kind, text) => {
    const failure = detectFailure({ ok: false, error: text });
    expect(failure?.message).toBe("The tool returned a failure.");
  });

  it("a returned Error or Response never shows its text", () => {
    expect(detectFailure(new Error("password=hunter2 at /srv/x.js:1"))?.message).toBe(
      "An unexpected error occurred (Error). The call was not retried.",
    );
    expect(detectFailure(new Response("internal body text", { status: 500 }))?.message).toBe(
      "The upstream service failed (HTTP 500).",
    );
  });

  it("a code the value names is shown only when it reads like a code, never a secret", () => {
    expect(detectFailure({ ok: false, code: "contact-locked" })?.code).toBe("CONTACT_LOCKED");
    expect(detectFailure({ ok: false, code: "sk_live_4eC39HqLyjWDarjtT1zdp7dc" })?.code).toBe("TOOL_ERROR");
    expect(detectFailure({ ok: false, code: "has spaces in it" })?.code).toBe("TOOL_ERROR");
  });

  it("Retry-After is read from a Response (seconds or date) and from the value", () => {
    const date = new Date(Date.now() + 60_000).toUTCString();
    expect(detectFailure(new Response(null, { status: 429, headers: { "retry-after": "7" } }))).toMatchObject({
      retryAfterMs: 7000,
      message: "Rate limited by the upstream service (HTTP 429). Retry after 7 seconds.",
    });
    const fromDate = detectFailure(new Response(null, { status: 503, headers: { "retry-after": date } }));
    expect(fromDate?.retryAfterMs).toBeGreaterThan(50_000);
    expect(detectFailure({ ok: false, status: 429, retryAfterMs: 1500 })?.retryAfterMs).toBe(1500);
  });

  it("the value's own retriable wins over the status's", () => {
    expect(detectFailure({ ok: false, status: 503, retriable: false })?.retriable).toBe(false);
    expect(detectFailure({ success: false, transient: true })?.retriable).toBe(true);
  });

  it("a failure at the end of a large list is found: every item is scanned", () => {
    const list = Array.from({ length: 5000 }, (_, i) => ({ id: `r-${i}`, ok: i !== 4321 }));
    const failure = detectFailure({ results: list });
    expect(failure?.items).toEqual([{ index: 4321, id: "r-4321", code: "TOOL_ERROR", retriable: false }]);
    expect(failure?.message).toBe("Some items failed: TOOL_ERROR (1 of 5000 in 'results'); the others succeeded.");
  });

  it("hostile values are data, never a crash", () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("no");
        },
      },
    );
    expect(detectFailure(hostile)).toBeUndefined();
    expect(detectFailure(Object.create({ ok: false, error: "inherited" }))).toBeUndefined();
  });
});
