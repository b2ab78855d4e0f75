/**
 * The Action's early GraphQL request against a real local HTTP server: a clean answer, and the
 * answers it drops (a dribbling body cut off by the total deadline, silence, an error status).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { askEarly } from "../../src/action/early.js";
import type { Inputs } from "../../src/action/inputs.js";

const inputs: Inputs = {
  mode: "audit",
  event: "schedule",
  token: "t0ken",
  owner: "acme",
  repo: "widgets",
  configPath: ".github/taskgate.yml",
  payload: {},
};

const DATA = { repository: { defaultBranchRef: { name: "main", target: { oid: "a".repeat(40) } } } };

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A local GraphQL endpoint; the env points the early request at it. */
async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void) {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { GITHUB_GRAPHQL_URL: `http://127.0.0.1:${port}/graphql` };
}

async function timed<T>(promise: Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await promise;
  return { value, ms: performance.now() - start };
}

describe("askEarly", () => {
  it("resolves to the data and the Date of a clean 200 GraphQL answer", async () => {
    let received: { authorization?: string; body: unknown } | undefined;
    const env = await serve((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        received = {
          authorization: request.headers.authorization,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
        };
        response.writeHead(200, { "content-type": "application/json", date: "Tue, 01 Dec 2026 10:00:00 GMT" });
        response.end(JSON.stringify({ data: DATA }));
      });
    });
    const early = askEarly(inputs, env)!;
    await early.sent;
    // The answer keeps GitHub's time of it: it stamps the facts the flow judges.
    expect(await early.answer).toEqual({ data: DATA, date: "Tue, 01 Dec 2026 10:00:00 GMT" });
    expect(received?.authorization).toBe("bearer t0ken");
    expect(received?.body).toMatchObject({ variables: { owner: "acme", name: "widgets" } });
  });

  it("drops a body dribbled byte by byte once the total deadline passes, and closes the connection", async () => {
    const body = JSON.stringify({ data: { repository: { note: "x".repeat(2000) } } });
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const env = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      response.flushHeaders();
      let at = 0;
      const drip = setInterval(() => {
        if (at < body.length) response.write(body[at++]);
      }, 50);
      response.socket?.on("close", () => {
        clearInterval(drip);
        closed();
      });
    });
    // The socket never idles (a byte every 50 ms) and the body would take 100 s: only the total
    // deadline can end this, and it must, long before the test's own timeout.
    const early = askEarly(inputs, env, { deadlineMs: 300, idleMs: 600_000 })!;
    expect(await early.answer).toBeUndefined();
    await early.sent;
    await connectionClosed;
  });

  it("resolves to undefined after the deadline when the server never answers", async () => {
    const env = await serve((request) => request.resume());
    const early = askEarly(inputs, env, { deadlineMs: 300, idleMs: 600_000 })!;
    const { value, ms } = await timed(early.answer);
    expect(value).toBeUndefined();
    expect(ms).toBeGreaterThanOrEqual(250); // not before the deadline
    await early.sent;
  });

  it("resolves to undefined when the socket stays idle, well before the total deadline", async () => {
    const env = await serve((request) => request.resume());
    // Only the idle timeout can end this before the test's own timeout.
    const early = askEarly(inputs, env, { deadlineMs: 600_000, idleMs: 200 })!;
    expect(await early.answer).toBeUndefined();
    await early.sent;
  });

  it("resolves to undefined, and settles `sent`, when the request cannot even be made", async () => {
    const env = await serve((_request, response) => response.end());
    const early = askEarly({ ...inputs, token: "bad\ntoken" }, env, { deadlineMs: 5000, idleMs: 5000 })!;
    expect(await early.answer).toBeUndefined();
    await early.sent;
  });

  it("resolves to undefined for a non-200 status", async () => {
    const env = await serve((request, response) => {
      request.resume();
      response.writeHead(502, { "content-type": "application/json" });
      response.end(JSON.stringify({ data: DATA }));
    });
    const early = askEarly(inputs, env, { deadlineMs: 5000, idleMs: 5000 })!;
    expect(await early.answer).toBeUndefined();
    await early.sent;
  });
});
