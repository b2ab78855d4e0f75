/**
 * The app as it runs: behind Probot's HTTP middleware (signatures verified), and every GraphQL
 * document checked against GitHub's schema.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sign } from "@octokit/webhooks-methods";
import { validate } from "@octokit/graphql-schema";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { taskgateMiddleware } from "../../src/app/middleware.js";
import { CREATE_COMMIT, PULL_REQUEST_FACTS, batchQuery, foldersQuery } from "../../src/github/queries.js";
import { privateKey } from "../helpers/fake-github.js";
import type { TempRepo } from "../helpers/git.js";
import { awaitingApproval, example } from "../helpers/probot.js";

const opened = example("pull_request", "opened");

const repos: TempRepo[] = [];
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  for (const repo of repos.splice(0)) repo.remove();
});

describe("GraphQL documents", () => {
  it("all validate against GitHub's published schema", () => {
    for (const document of [
      PULL_REQUEST_FACTS,
      CREATE_COMMIT,
      batchQuery({ blobs: 3, people: 2, teams: 2 }),
      batchQuery({ blobs: 1, people: 0, teams: 0 }),
      batchQuery({ blobs: 0, people: 0, teams: 0 }),
      foldersQuery(3),
    ]) {
      expect(validate(document)).toEqual([]);
    }
  });
});

describe("webhooks over HTTP", () => {
  let server: Server;
  let url: string;
  const secret = "a webhook secret";

  beforeAll(async () => {
    Object.assign(process.env, { APP_ID: "1", PRIVATE_KEY: privateKey(), WEBHOOK_SECRET: secret, LOG_LEVEL: "fatal" });
    const middleware = await taskgateMiddleware();
    server = createServer((request, response) => {
      void middleware(request, response, () => {
        response.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function post(body: string, signature: string): Promise<number> {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-github-delivery": "delivery-1",
        "x-hub-signature-256": signature,
      },
      body,
    });
    return response.status;
  }

  it("refuses a delivery whose signature does not verify, and handles one that does", async () => {
    const fake = awaitingApproval(repos);
    nock.enableNetConnect("127.0.0.1");
    const body = JSON.stringify(fake.payload(opened));
    expect(await post(body, await sign("another secret", body))).toBe(400);
    expect(fake.requests).toEqual([]);
    expect(await post(body, await sign(secret, body))).toBe(200);
    expect(fake.checkRuns).toHaveLength(1);
  });
});
