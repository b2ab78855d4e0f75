/**
 * What the app's tests share: GitHub's documented webhook payloads, a Probot running taskgate with
 * GitHub's fake behind nock, and the smallest pull request that waits for an approval.
 */
import examples from "@octokit/webhooks-examples";
import nock from "nock";
import { Probot } from "probot";
import { afterEach, beforeEach } from "vitest";
import { app } from "../../src/app/index.js";
import { TaskgateOctokit } from "../../src/app/octokit.js";
import { FakeGitHub, privateKey, type FakeOptions } from "./fake-github.js";
import { tempRepo, type TempRepo } from "./git.js";

type Example = { name: string; examples: Record<string, unknown>[] };

/**
 * A webhook payload as GitHub documents it (@octokit/webhooks-examples), e.g. pull_request.opened;
 * without an action, the event's first example (push has none).
 */
export function example(name: string, action?: string): Record<string, unknown> {
  const found = (examples as unknown as Example[])
    .find((item) => item.name === name)
    ?.examples.find((item) => action === undefined || item.action === action);
  if (!found) throw new Error(`no example ${name}${action ? `.${action}` : ""}`);
  return found;
}

/**
 * A Probot running taskgate. Retries are off unless `retry` says otherwise, and throttling is off
 * unless `throttle` is set; both through a defaults *function*: Probot merges its own throttling
 * options over an options object, which would keep writes a second apart.
 */
export function testProbot(options: { retry?: object; throttle?: boolean; redisConfig?: string } = {}): Probot {
  const retry = options.retry ?? { enabled: false };
  const instance = new Probot({
    appId: 1,
    privateKey: privateKey(),
    ...(options.redisConfig && { redisConfig: options.redisConfig }),
    Octokit: TaskgateOctokit.defaults((defaults: object) => ({
      ...defaults,
      retry,
      ...(!options.throttle && { throttle: { enabled: false } }),
    })),
    logLevel: "fatal",
  });
  instance.load(app);
  return instance;
}

/**
 * A phases repository whose pull request moves one task to `research:awaiting_approval`, with the
 * fake GitHub installed through nock; the repository joins `repos` for removal.
 */
export function awaitingApproval(repos: TempRepo[]): FakeGitHub {
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

export interface AppSandbox {
  /** Temporary repositories to remove after the test (helpers that make their own take it). */
  readonly repos: TempRepo[];
  /** A temporary repository, removed after the test. */
  repo(): TempRepo;
  /** The fake GitHub in front of a repository, installed through nock. */
  github(repo: TempRepo, options: FakeOptions): FakeGitHub;
}

/**
 * The set-up every app test file shares: no connection leaves the machine during a test (unless
 * `offline: false`, for a fake served over HTTP on this machine), and after each test nock's
 * interceptors are cleared and the temporary repositories removed. Call at the top of a file or a
 * `describe`.
 */
export function appSandbox(options: { offline?: boolean } = {}): AppSandbox {
  const repos: TempRepo[] = [];
  if (options.offline !== false) beforeEach(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
    for (const repo of repos.splice(0)) repo.remove();
  });
  return {
    repos,
    repo() {
      const repo = tempRepo();
      repos.push(repo);
      return repo;
    },
    github(repo, fakeOptions) {
      const fake = new FakeGitHub(repo, fakeOptions);
      fake.install();
      return fake;
    },
  };
}
