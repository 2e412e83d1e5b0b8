/*
 * The inspector's guards, on every answer: errors as fixed texts with codes, DNS rebinding refused,
 * secure headers (a CSP that allows only the page's own files), no caching, the bearer token, and
 * for every action: hono's CSRF check, the page's custom header and the page's origin.
 */
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { bearerAuth } from "hono/bearer-auth";
import type { Context, Hono, MiddlewareHandler } from "hono";
import { LOOPBACK } from "./inspector-options.js";
import { failure, HttpError, operatorName, sameSecret } from "./request.js";

const CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  connectSrc: ["'self'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
};

/**
 * Installs the guards on `app` and returns the one every action route adds (`pageOnly`): the page's
 * header and origin, and the action log ready before anything is done.
 */
export function guard(
  app: Hono,
  token: string | undefined,
  origin: () => string,
  actionLogReady: () => Promise<unknown>,
): MiddlewareHandler {
  app.onError((error, c) => {
    if (error instanceof HTTPException)
      return error.status === 403 ? c.json({ error: "Cross-origin request refused." }, 403) : error.getResponse();
    const { status, body } = failure(error);
    return c.json(body, status);
  });
  app.notFound((c) => c.json({ error: "Not found." }, 404));

  // DNS rebinding: on loopback without a token, only requests addressed to loopback are answered.
  app.use(async (c, next) => {
    const hostHeader = (c.req.header("host") ?? "").replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
    if (token === undefined && !LOOPBACK.has(hostHeader))
      return c.json({ error: "This inspector answers only requests addressed to localhost." }, 421);
    await next();
    return undefined;
  });
  // Every answer: nothing from another origin may frame, script or read the page.
  app.use(
    secureHeaders({
      contentSecurityPolicy: CSP,
      referrerPolicy: "no-referrer",
      xContentTypeOptions: "nosniff",
      xFrameOptions: "DENY",
      crossOriginResourcePolicy: "same-origin",
    }),
  );
  app.use(async (c, next) => {
    await next();
    c.header("cache-control", "no-store");
  });
  if (token !== undefined)
    app.use(
      "/api/*",
      bearerAuth({
        verifyToken: (given) => sameSecret(given, token),
        noAuthenticationHeader: { message: { error: "A valid token is required." } },
        invalidAuthenticationHeader: { message: { error: "A valid token is required." } },
        invalidToken: { message: { error: "A valid token is required." } },
      }),
    );
  // A write: only from this page. A form (or a cross-site request) cannot set the custom header, and a
  // request that says where it comes from must come from here.
  const sameOrigin = (from: string, c: Context): boolean =>
    from === origin() || from === `http://${c.req.header("host") ?? ""}`;
  // hono's CSRF check for what a browser sends (always with an Origin on a POST); a script sends none,
  // and must still carry the custom header below.
  const browserCsrf = csrf({ origin: sameOrigin });
  app.use("/api/*", (c, next) => (c.req.header("origin") === undefined ? next() : browserCsrf(c, next)));
  const pageOnly: MiddlewareHandler = async (c, next) => {
    if (c.req.header("x-needlework-inspector") !== "1") throw new HttpError(403, "Missing the inspector's header.");
    const from = c.req.header("origin");
    if (from !== undefined && !sameOrigin(from, c)) throw new HttpError(403, "Cross-origin request refused.");
    // Every action is journaled with who took it: a nameless one is refused, never recorded as nobody.
    if (operatorName(c) === "")
      throw new HttpError(
        400,
        "Say who you are first: enter your name in the page's Operator field (the x-needlework-operator header). Every action is journaled with it.",
        "OPERATOR_REQUIRED",
      );
    // The action log is ready before anything is done: an action that cannot be journaled is not taken.
    await actionLogReady();
    await next();
  };

  return pageOnly;
}
