// A transparent HTTP proxy in front of the Toolbox server, so that every client meets the same
// network faults: armed with `loseNextResponse(match)`, it forwards the next POST whose body matches,
// lets the server answer (the write is committed), then resets the client's connection instead of
// answering: the classic "did it run?" a client must not answer by sending the write again.
// Hand-written: no maintained proxy library offers "drop this one response after the upstream
// answered"; the forwarding itself is node:http.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A running proxy: its base URL and its fault switch. */
export interface FaultProxy {
  readonly base: string;
  /** The next POST whose body contains every string of `match` loses its response (once). */
  loseNextResponse(match: readonly string[]): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (free port) forwarding to `upstreamPort` on 127.0.0.1. */
export async function startFaultProxy(upstreamPort: number): Promise<FaultProxy> {
  let armed: readonly string[] | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const text = body.toString("utf8");
      const lose = req.method === "POST" && armed !== undefined && armed.every((m) => text.includes(m));
      if (lose) armed = undefined;
      const upstream = request(
        { host: "127.0.0.1", port: upstreamPort, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          if (lose) {
            answer.resume();
            answer.on("end", () => req.socket.destroy());
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      // The server down: answered as a gateway answers it (502), unless this response was to be lost.
      upstream.on("error", () => (lose || res.headersSent ? req.socket.destroy() : res.writeHead(502).end()));
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    loseNextResponse: (match) => {
      armed = match;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
