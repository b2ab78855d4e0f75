/** The GitHub port against the fake GitHub: an API client, and repositories generated from a seed. */
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { GitHubApi } from "../../src/github/api.js";
import { taskgateRequests } from "../../src/github/octokit.js";
import { FakeGitHub, type RecordedRequest } from "../helpers/fake-github.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";

const TestOctokit = Octokit.plugin(taskgateRequests as never);

/** A client of the fake's repository, as the Action builds one (no retries: a failure shows). */
export function apiFor(fake: FakeGitHub): GitHubApi {
  return new GitHubApi(new TestOctokit({ auth: "ghs_test", request: { retries: 0 } }) as never, {
    owner: fake.owner,
    repo: fake.name,
  });
}

/** Requests by kind: `Folders`, `Batch`, `GET tree` (with `recursive` or not), … */
export function kinds(requests: readonly RecordedRequest[]): string[] {
  return requests.map((request) =>
    request.operation
      ? request.operation
      : `${request.method} ${request.path.replace(/^\/repos\/[^/]+\/[^/]+/, "").replace(/[0-9a-f]{40}/g, "<sha>")}${request.query?.recursive ? " recursive" : ""}`,
  );
}

/** A deterministic generator (mulberry32). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A repository generated from a seed: `main` with files in nested folders (names that sort around
 * "/", a file and a folder of the same stem, empty files, an executable), and branch `feature` that
 * adds, edits, deletes, changes a mode, replaces a file by a folder and a folder by a file.
 */
export function generated(seed: number, files = 60): { repo: TempRepo; paths: string[] } {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const names = ["a", "a.b", "a-b", "a0", "b", "tasks", "x", "zz", "é"];
  const repo = tempRepo();
  const base: Record<string, string> = { ".github/taskgate.yml": "preset: phases\n" };
  while (Object.keys(base).length < files) {
    const depth = 1 + Math.floor(random() * 4);
    const path = Array.from({ length: depth }, () => pick(names)).join("/");
    if (Object.keys(base).some((other) => other.startsWith(`${path}/`) || path.startsWith(`${other}/`))) continue;
    base[path] = random() < 0.1 ? "" : `content ${Math.floor(random() * 5)}\n`;
  }
  repo.write(base);
  const paths = Object.keys(base).sort();
  const executable = paths.find((path) => path !== ".github/taskgate.yml");
  if (executable) chmodSync(join(repo.dir, executable), 0o755);
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  const head: Record<string, string | null> = {};
  for (const path of paths) {
    const roll = random();
    if (roll < 0.15) head[path] = `changed ${seed}\n`;
    else if (roll < 0.25) head[path] = null;
    else if (roll < 0.3) head[path] = `${base[path]}`.replace("content", "kept");
  }
  const replaced = paths.find((path) => head[path] === undefined && path.includes("/"));
  if (replaced) {
    head[replaced] = null;
    head[`${replaced}/inside`] = "now a folder\n";
  }
  const folders = [...new Set(paths.map((path) => path.slice(0, path.lastIndexOf("/") + 1)))];
  for (let index = 0; index < 5; index++) head[`${pick(folders)}new-${seed}-${index}`] = `new ${index}\n`;
  repo.write(head);
  if (executable && head[executable] === undefined) chmodSync(join(repo.dir, executable), 0o644);
  repo.commit("work", "carol");
  return { repo, paths };
}
