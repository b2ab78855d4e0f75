/** The App with its pages on, served on this machine for the tests that visit them. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { Probot, createNodeMiddleware } from "probot";
import { afterEach } from "vitest";
import { taskgateApp } from "../../src/app/index.js";
import { TaskgateOctokit } from "../../src/app/octokit.js";
import { viewsRenderer } from "../../src/app/pages/views.js";
import { apiFor } from "../github/helpers.js";
import { privateKey, type FakeGitHub } from "./fake-github.js";

type Middleware = Awaited<ReturnType<typeof createNodeMiddleware>>;

/**
 * An HTTP server on 127.0.0.1 (added to `servers`, for the caller to close) that hands every request
 * to `served.handler`, set once the middleware exists; `url` is its address, which the middleware's
 * settings name.
 */
export async function localServer(servers: Server[]): Promise<{ url: string; served: { handler?: Middleware } }> {
  const served: { handler?: Middleware } = {};
  const server = createServer((request, response) => {
    void served.handler!(request, response, () => response.writeHead(404).end());
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, served };
}

/** The repository page of the fake's repository, through the App's own renderer (no server). */
export function repositoryPage(fake: FakeGitHub): Promise<string | undefined> {
  return viewsRenderer.render("repository", {
    owner: fake.owner,
    repo: fake.name,
    query: new URLSearchParams(),
    octokit: apiFor(fake).octokit,
    appId: 1,
    baseUrl: "http://127.0.0.1",
  });
}

export const SESSION_SECRET = "a session secret of at least thirty-two characters";

/**
 * The App (its middleware, its own renderer) on 127.0.0.1, `TASKGATE_URL` its own address, with the
 * fake GitHub's OAuth credentials; closed after the test. Its calls to GitHub go to the fake (nock).
 */
export function useApp(): (fake: FakeGitHub) => Promise<string> {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      // The browser may keep a connection alive; the server must not wait for it.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return async (fake) => {
    const { url, served } = await localServer(servers);
    const env = {
      TASKGATE_URL: url,
      GITHUB_CLIENT_ID: fake.oauth.clientId,
      GITHUB_CLIENT_SECRET: fake.oauth.clientSecret,
      TASKGATE_SESSION_SECRET: SESSION_SECRET,
    };
    const probot = new Probot({
      appId: 1,
      privateKey: privateKey(),
      log: pino({ level: "silent" }),
      Octokit: TaskgateOctokit.defaults((defaults: object) => ({
        ...defaults,
        retry: { enabled: false },
        throttle: { enabled: false },
      })),
    });
    served.handler = await createNodeMiddleware(taskgateApp({ env }), { probot });
    return url;
  };
}
