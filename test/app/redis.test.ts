/**
 * Replicas share one GitHub rate limit through Redis (Probot's REDIS_URL): a delivery through an app
 * configured with a real redis-server keeps its limiter there. In a file of its own: Octokit's
 * throttling keeps its limiters per process, and the first app to start in a process sets them up.
 */
import { spawn, type ChildProcess } from "node:child_process";
import examples from "@octokit/webhooks-examples";
import { Redis } from "ioredis";
import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { app } from "../../src/app/index.js";
import { FakeGitHub, privateKey } from "../helpers/fake-github.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";

type Example = { name: string; examples: Record<string, unknown>[] };
const opened = (examples as unknown as Example[])
  .find((item) => item.name === "pull_request")!
  .examples.find((item) => item.action === "opened")!;

const repos: TempRepo[] = [];
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  for (const repo of repos.splice(0)) repo.remove();
});

function fakeFor(): FakeGitHub {
  const repo = tempRepo();
  repos.push(repo);
  repo.write({ ".github/taskgate.yml": "preset: phases\n", "tasks/a/.state": "research\n", "tasks/a/SPEC.md": "s\n" });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({ "tasks/a/.state": "research:awaiting_approval\n" });
  repo.commit("ready", "carol");
  const fake = new FakeGitHub(repo, { head: "feature" });
  fake.install();
  return fake;
}

describe("replicas sharing GitHub's rate limit through Redis", () => {
  let redis: ChildProcess;
  const port = 16_379 + Math.floor(Math.random() * 1000);

  beforeAll(async () => {
    redis = spawn("redis-server", ["--port", String(port), "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    // Wait until the server answers a PING.
    for (let attempt = 0; ; attempt++) {
      const client = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on("error", () => {});
      try {
        await client.connect();
        await client.ping();
        await client.quit();
        break;
      } catch (error) {
        client.disconnect();
        if (attempt > 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  afterAll(() => {
    redis.kill();
  });

  it("runs a delivery through an app whose limiter lives in Redis", async () => {
    const fake = fakeFor();
    nock.enableNetConnect(`127.0.0.1:${port}`);
    const probot = new Probot({
      appId: 1,
      privateKey: privateKey(),
      redisConfig: `redis://127.0.0.1:${port}`,
      Octokit: ProbotOctokit.defaults((options: object) => ({ ...options, retry: { enabled: false } })),
      logLevel: "fatal",
    });
    probot.load(app);
    await probot.receive({ id: "1", name: "pull_request", payload: fake.payload(opened) as never });
    expect(fake.checkRuns).toHaveLength(1);
    const client = new Redis({ port });
    const keys = await client.keys("*");
    await client.quit();
    // Bottleneck keeps the shared limiter's state under its own keys.
    expect(keys.some((key) => key.startsWith("b_"))).toBe(true);
  });
});
