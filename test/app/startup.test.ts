/**
 * First contact with the App: Probot's own manifest flow registers it with the webhook URL it
 * serves; it never starts without a webhook secret of its own; a forged delivery costs one short log
 * line; and when GitHub cannot be reached (a closed port, a server that never answers, a bad private
 * key) each delivery ends, bounded, with one clear line naming the cause, never the payload or a token.
 */
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Writable } from "node:stream";
import { sign } from "@octokit/webhooks-methods";
import nock from "nock";
import { Probot } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { app } from "../../src/app/index.js";
import { DELIVERY_DEADLINE_MS } from "../../src/app/guard.js";
import { createLog } from "../../src/app/log.js";
import { taskgateMiddleware } from "../../src/app/middleware.js";
import { TaskgateOctokit } from "../../src/app/octokit.js";
import { StartupError, probotManifestCreation, registerWithOwnWebhookPath } from "../../src/app/setup.js";
import { start } from "../../src/app/start.js";
import { privateKey } from "../helpers/fake-github.js";
import { example } from "../helpers/probot.js";

const ROOT = join(import.meta.dirname, "..", "..");

/** A log whose lines (JSON) land in `lines`. */
async function capturedLog(lines: Record<string, unknown>[]) {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return createLog({ level: "info", destination: destination as never });
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
  nock.cleanAll();
  nock.enableNetConnect();
});

describe("registration through Probot's manifest flow", () => {
  it("registers the webhook on the path the App serves, at the server's address, and redirects back to it", async () => {
    const env = { WEBHOOK_PATH: undefined } as NodeJS.ProcessEnv;
    await registerWithOwnWebhookPath(env);
    const ManifestCreation = await probotManifestCreation();
    const manifest = JSON.parse(
      new (ManifestCreation as unknown as new () => { getManifest(o: object): string })().getManifest({
        pkg: { name: "taskgate", description: "d" },
        baseUrl: "https://taskgate.example.com",
      }),
    );
    expect(manifest.hook_attributes.url).toBe("https://taskgate.example.com/api/github/webhooks");
    expect(manifest.redirect_url).toBe("https://taskgate.example.com/probot/setup");
    expect(manifest.default_permissions).toEqual({
      checks: "write",
      contents: "write",
      pull_requests: "write",
      issues: "write",
      members: "read",
      metadata: "read",
    });
    expect(manifest.public).toBe(false);

    // In development, the smee proxy Probot set up receives the deliveries and forwards them.
    await registerWithOwnWebhookPath({ WEBHOOK_PROXY_URL: "https://smee.io/abc" });
    const proxied = JSON.parse(
      new (ManifestCreation as unknown as new () => { getManifest(o: object): string })().getManifest({
        pkg: { name: "taskgate" },
        baseUrl: "http://localhost:3000",
      }),
    );
    expect(proxied.hook_attributes.url).toBe("https://smee.io/abc");
    expect(proxied.redirect_url).toBe("http://localhost:3000/probot/setup");
  });
});

describe("secure by default", () => {
  const base = { APP_ID: "1", PRIVATE_KEY: "x", LOG_LEVEL: "fatal" };

  it("refuses to start without a webhook secret, or with Probot's public default, naming the variable", async () => {
    for (const secret of [undefined, "", "development"]) {
      const env = { ...base, ...(secret !== undefined && { WEBHOOK_SECRET: secret }) } as NodeJS.ProcessEnv;
      await expect(start(env)).rejects.toThrow(StartupError);
      await expect(start(env)).rejects.toThrow(/WEBHOOK_SECRET/);
      await expect(taskgateMiddleware({ env })).rejects.toThrow(/WEBHOOK_SECRET/);
    }
  });

  it("`npm start` exits with one line naming the variable", () => {
    // dist/ is what `npm start` runs (`npm test` builds it first).
    const result = spawnSync(process.execPath, [join(ROOT, "dist/app/start.js")], {
      cwd: join(ROOT, "test"),
      env: { PATH: process.env.PATH ?? "", APP_ID: "1", PRIVATE_KEY: "x", WEBHOOK_SECRET: "development" },
      encoding: "utf8",
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("WEBHOOK_SECRET is Probot's public default");
  });

  it("a delivery with a bad signature costs one short log line, without its payload", async () => {
    const lines: Record<string, unknown>[] = [];
    const log = await capturedLog(lines);
    const env = { APP_ID: "1", PRIVATE_KEY: privateKey(), WEBHOOK_SECRET: "the secret" } as NodeJS.ProcessEnv;
    const middleware = await taskgateMiddleware({ env, log });
    const server = createServer(
      (request, response) => void middleware(request, response, () => response.writeHead(404).end()),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`;
    const body = JSON.stringify({ ...example("pull_request", "opened"), marker: "PAYLOAD-MARKER" });
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-github-delivery": "d-1",
        "x-hub-signature-256": await sign("not the secret", body),
      },
      body,
    });
    expect(response.status).toBe(400);
    const errors = lines.filter((line) => Number(line.level) >= 50);
    expect(errors).toHaveLength(1);
    const text = JSON.stringify(errors[0]);
    expect(text.length).toBeLessThan(600);
    expect(text).not.toContain("PAYLOAD-MARKER");
    expect(text).toContain("signature does not match WEBHOOK_SECRET");
  });
});

describe("bounded when GitHub misbehaves", () => {
  beforeEach(() => nock.enableNetConnect("127.0.0.1"));

  /** A Probot running taskgate against `baseUrl`, logging into `lines`. */
  async function appAgainst(baseUrl: string, lines: Record<string, unknown>[], key = privateKey()) {
    const probot = new Probot({
      appId: 1,
      privateKey: key,
      baseUrl,
      log: await capturedLog(lines),
      Octokit: TaskgateOctokit.defaults((defaults: object) => ({
        ...defaults,
        retry: { enabled: true, retries: 2, retryAfterBaseValue: 5 },
        throttle: { enabled: false },
        taskgate: { deadlineMs: 300 },
      })),
    });
    await probot.load(app);
    return probot;
  }

  const delivery = () => ({
    id: "delivery-7",
    name: "pull_request" as const,
    payload: { ...example("pull_request", "opened"), installation: { id: 1 }, marker: "PAYLOAD-MARKER" } as never,
  });

  /** Runs one delivery: its error lines, and how long it took. */
  async function deliver(baseUrl: string, key?: string) {
    const lines: Record<string, unknown>[] = [];
    const probot = await appAgainst(baseUrl, lines, key);
    const started = performance.now();
    await probot.receive(delivery());
    const ms = performance.now() - started;
    const errors = lines.filter((line) => Number(line.level) >= 50).map((line) => String(line.msg));
    for (const line of lines) {
      expect(JSON.stringify(line)).not.toContain("PAYLOAD-MARKER");
      expect(JSON.stringify(line)).not.toMatch(/ghs_|BEGIN RSA/);
    }
    return { errors, ms };
  }

  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  it("a refused connection ends the delivery with one line naming the host and what to check", async () => {
    const port = await closedPort();
    const { errors, ms } = await deliver(`http://127.0.0.1:${port}`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`could not reach GitHub at 127.0.0.1:${port} (ECONNREFUSED`);
    expect(errors[0]).toContain("check GHE_HOST");
    expect(errors[0]).toContain("delivery delivery-7");
    // Bounded: well within the delivery's own deadline.
    expect(ms).toBeLessThan(DELIVERY_DEADLINE_MS);
  });

  it("a server that never answers is abandoned after each request's deadline, in one line", async () => {
    const silent = createServer(() => {});
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as AddressInfo).port;
    const { errors, ms } = await deliver(`http://127.0.0.1:${port}`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/did not answer in time|could not reach/);
    expect(errors[0]).toContain(`127.0.0.1:${port}`);
    expect(ms).toBeLessThan(DELIVERY_DEADLINE_MS);
    silent.closeAllConnections();
  });

  it("a private key that cannot sign says so, and which variables to check", async () => {
    const { errors } = await deliver(
      "http://127.0.0.1:1",
      "-----BEGIN RSA PRIVATE KEY-----\nnot a key\n-----END RSA PRIVATE KEY-----",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("private key cannot sign");
    expect(errors[0]).toContain("PRIVATE_KEY");
    expect(errors[0]).not.toContain("not a key");
  });
});
