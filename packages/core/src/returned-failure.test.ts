import { describe, expect, it } from "vitest";
import { detectFailure } from "./returned-failure.js";
import { failing, legitimate, partial } from "./returned-failure.corpus.js";
import { misses } from "./returned-failure.corpus-apis.js";

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
    expect(failure?.message).toBe("1 failed: TOOL_ERROR (of 5000 in 'results'); the others succeeded.");
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

describe("detectFailure: precision before reach", () => {
  it("the corpus labels every real API's payload with its source", () => {
    const labelled = [...legitimate, ...failing, ...partial].filter((c) => c.source !== undefined);
    expect(labelled.length).toBeGreaterThanOrEqual(35);
    for (const api of ["GitHub", "Stripe", "Shopify", "JSend", "Elasticsearch", "ESLint", "uptime", "audit"])
      expect(labelled.some((c) => c.source?.includes(api) || c.name.includes(api))).toBe(true);
  });

  it.each(misses.map((c) => [c.name, c] as const))("a miss stays data: %s", (_name, c) => {
    expect(detectFailure(c.value)).toBeUndefined();
    expect(JSON.stringify(c.value)).toContain(c.visible);
  });

  it("many failed items: the count and every code, most frequent first, at the start of the message", () => {
    const codes = ["FORBIDDEN", "FORBIDDEN", "TIMEOUT", "NOT_FOUND", "FORBIDDEN", "TIMEOUT", "CONFLICT"];
    const results = [{ id: "ok", ok: true }, ...codes.map((code, i) => ({ id: `r${i}`, ok: false, code }))];
    expect(detectFailure({ results })?.message).toBe(
      "7 failed: FORBIDDEN×3, TIMEOUT×2, NOT_FOUND, CONFLICT (of 8 in 'results'); the others succeeded.",
    );
  });

  it("more codes than fit are counted, never dropped silently", () => {
    const codes = Array.from({ length: 14 }, (_, i) => `A_RATHER_LONG_FAILURE_CODE_${String.fromCharCode(65 + i)}`);
    const message = detectFailure(codes.map((code, i) => ({ id: i, ok: false, code })))?.message ?? "";
    expect(message).toMatch(/^14 failed: A_RATHER_LONG_FAILURE_CODE_A, .*, \+\d+ more codes \(all 14 in the list\)\.$/);
    expect(message.length).toBeLessThan(130);
  });

  it("a sparse array of length 2^32-1 is read in bounded time", () => {
    const sparse: unknown[] = [];
    sparse.length = 2 ** 32 - 1;
    sparse[3] = { id: "x", ok: false };
    const started = performance.now();
    expect(detectFailure({ results: sparse })?.items).toEqual([
      { index: 3, id: "x", code: "TOOL_ERROR", retriable: false },
    ]);
    expect(detectFailure(sparse)?.code).toBe("PARTIAL_FAILURE");
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
