/**
 * Replicas share one GitHub rate limit through Redis (Probot's REDIS_URL): a delivery through an app
 * configured with a real redis-server keeps its limiter there. In a file of its own: Octokit's
 * throttling keeps its limiters per process, and the first app to start in a process sets them up.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { Redis } from "ioredis";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TempRepo } from "../helpers/git.js";
import { awaitingApproval, example, testProbot } from "../helpers/probot.js";

const opened = example("pull_request", "opened");

const repos: TempRepo[] = [];
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  for (const repo of repos.splice(0)) repo.remove();
});

/**
 * A machine without redis-server (a contributor's laptop) skips this file, saying so in the output;
 * CI (`CI` set) never skips it: .ci/run installs redis-server, and a missing one fails here.
 */
const available = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
if (!available && !process.env.CI) {
  console.warn(
    "\n[taskgate] redis-server is not installed: the Redis test is SKIPPED on this machine (CI always runs it). Install redis-server to run it.\n",
  );
}

describe.skipIf(!available && !process.env.CI)("replicas sharing GitHub's rate limit through Redis", () => {
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
    const fake = awaitingApproval(repos);
    nock.enableNetConnect(`127.0.0.1:${port}`);
    const probot = testProbot({ throttle: true, redisConfig: `redis://127.0.0.1:${port}` });
    await probot.receive({ id: "1", name: "pull_request", payload: fake.payload(opened) as never });
    expect(fake.checkRuns).toHaveLength(1);
    const client = new Redis({ port });
    const keys = await client.keys("*");
    await client.quit();
    // Bottleneck keeps the shared limiter's state under its own keys.
    expect(keys.some((key) => key.startsWith("b_"))).toBe(true);
  });
});
