/**
 * The GitHub App's cost per delivery, against the stateful fake of GitHub the tests use (a real git
 * repository behind nock, which cuts a recursive tree at 100,000 entries or 7 MB as GitHub does):
 *
 * - a 3-task pull request on a 100-task, a 10,000-task and a 150,000-file repository (a monorepo
 *   with a task store): the requests that judge it and all requests of the delivery, the bytes of
 *   GitHub's answers, and the median CPU time (`process.cpuUsage()`: the App and the fake, which
 *   share the process) and wall time from delivery to check run;
 * - the trees of that pull request read each way: one recursive listing per commit, or a walk down
 *   the folders whose object ids differ, level by level or given the files the comparison lists
 *   (what the GitHub port does);
 * - growth through the port: a pull request touching N tasks against 2N, and a tree of N files
 *   against 2N (CPU time may grow at most 2.2× per doubling).
 *
 * Repositories are built by one `git fast-import` each. Medians of BENCH_RUNS runs (default 3) after
 * a warm-up, the sizes compared interleaved. Besides the table, one `BENCH_ROW {...}` line per figure.
 * Run with `npm run bench` (or `vitest run -c vitest.bench.config.ts`).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import nock from "nock";
import { expect, it } from "vitest";
import { GitHubRepository, TruncatedTreeError } from "../src/github/repository.js";
import { Tree, absorbListing, changedFiles, type Folders } from "../src/github/trees.js";
import { FakeGitHub, type RecordedRequest } from "../test/helpers/fake-github.js";
import type { TempRepo } from "../test/helpers/git.js";
import { apiFor } from "../test/github/helpers.js";
import { example, testProbot } from "../test/helpers/probot.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SMALL = 100;
const LARGE = Number(process.env.BENCH_TASKS ?? 10_000);
const MONOREPO_FILES = 145_000;
const GROWTH_TASKS = Number(process.env.BENCH_APP_GROWTH ?? 400);
const TREE_FILES = Number(process.env.BENCH_APP_TREE ?? 4000);
const opened = example("pull_request", "opened");

// ---------------------------------------------------------------------------------------------
// Repositories

/** A repository built by one `git fast-import`, shaped as the fake GitHub wants one. */
async function imported(stream: Iterable<string>): Promise<TempRepo> {
  const dir = mkdtempSync(join(tmpdir(), "taskgate-app-bench-"));
  const git = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      // glibc gives memory back to the system on each free by default, which costs fast-import one
      // system call per object here (minutes for 150,000 files); a top pad keeps it seconds.
      const env = { ...process.env, MALLOC_TOP_PAD_: String(2 ** 28) };
      const child = spawn("git", args, { cwd: dir, env, stdio: ["pipe", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0 ? resolve(out.trim()) : reject(new Error(`git ${args[0]} failed: ${err.trim()}`)),
      );
      if (args[0] === "fast-import") Readable.from(stream).pipe(child.stdin);
      else child.stdin.end();
    });
  await git("init", "-q", "-b", "main");
  await git("fast-import", "--quiet", "--done");
  const { execFileSync } = await import("node:child_process");
  return {
    dir,
    git: (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8", maxBuffer: 2 ** 30 }).trim(),
    write: () => {
      throw new Error("a bench repository is read-only");
    },
    symlink: () => {
      throw new Error("a bench repository is read-only");
    },
    commit: () => {
      throw new Error("a bench repository is read-only");
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const pad = (value: number) => String(value).padStart(5, "0");
const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
const file = (path: string, text: string) => `M 100644 inline ${path}\n${data(text)}`;
/** A commit on `ref`: the first of the import is `main` (mark 1); the others branch from it. */
const commit = (ref: string, who: string, time: number) =>
  `commit refs/heads/${ref}\n${ref === "main" ? "mark :1\n" : ""}committer ${who} <${who}@example.com> ${time} +0000\n${data(`${ref} by ${who}`)}${ref === "main" ? "" : "from :1\n"}`;

/** One task at `implement`, as a repository that has run for a while has them. */
function task(id: string): string {
  return (
    file(`tasks/${id}/.state`, "implement\n") +
    file(`tasks/${id}/.state.approvals`, "research:approved|2026-01-05T10:00:00Z|lee\n") +
    file(`tasks/${id}/SPEC.md`, `# ${id}\n\nWhat ${id} does, and why.\n`) +
    file(`tasks/${id}/NOTES.md`, `notes on ${id}\n`)
  );
}

/**
 * `tasks` tasks, `project` project files under `src/lib/` (`depth` folders deep, 16 to a folder),
 * `src/app/main.ts` and the config on `main`; on `feature`, a 3-task pull request by carol: one
 * task to `bug_find` with its report and `src/app/main.ts` fixed, one task's spec edited, one new task
 * at `research`. The same changed paths in every repository, so the same folders differ.
 */
function* taskRepository(tasks: number, project: number, depth: number): Generator<string> {
  yield commit("main", "alice", 1767225600);
  yield file(".github/taskgate.yml", "preset: phases\n") + file("src/app/main.ts", "export const v = 0;\n");
  let chunk = "";
  for (let index = 0; index < project; index++) {
    const folders = Array.from({ length: depth }, (_, level) => `d${(index >> (4 * (depth - level))) % 16}`);
    chunk += file(`src/lib/${folders.join("/")}/m${pad(index)}.ts`, `export const v${index} = ${index};\n`);
    if (chunk.length > 1 << 16) {
      yield chunk;
      chunk = "";
    }
  }
  for (let index = 0; index < tasks; index++) {
    chunk += task(`task-${pad(index)}`);
    if (chunk.length > 1 << 16) {
      yield chunk;
      chunk = "";
    }
  }
  yield chunk;
  yield `\n${commit("feature", "carol", 1767312000)}`;
  const [moved, edited] = [`task-${pad(1)}`, `task-${pad(2)}`];
  yield file(`tasks/${moved}/.state`, "bug_find\n") + file(`tasks/${moved}/BUG_REPORT.md`, "two bugs, both fixed\n");
  yield file(`tasks/${edited}/SPEC.md`, `# ${edited}\n\nWhat it does, said better.\n`);
  yield file("tasks/task-new/.state", "research\n") + file("tasks/task-new/SPEC.md", "# task-new\n");
  yield file("src/app/main.ts", "export const v = 1;\n");
  yield "\ndone\n";
}

/** `tasks` tasks on `main`; branch `n<count>` moves the first `count` of them to `bug_find`. */
function* growthRepository(tasks: number, counts: readonly number[]): Generator<string> {
  yield commit("main", "alice", 1767225600);
  yield file(".github/taskgate.yml", "preset: phases\n");
  for (let index = 0; index < tasks; index++) yield task(`task-${pad(index)}`);
  for (const count of counts) {
    yield `\n${commit(`n${count}`, "carol", 1767312000)}`;
    for (let index = 0; index < count; index++) {
      const id = `task-${pad(index)}`;
      yield file(`tasks/${id}/.state`, "bug_find\n") + file(`tasks/${id}/BUG_REPORT.md`, `bugs of ${id}\n`);
    }
  }
  yield "\ndone\n";
}

/** `files` files in folders of ten on `main`; `feature` changes every one of them. */
function* treeRepository(files: number): Generator<string> {
  yield commit("main", "alice", 1767225600);
  const path = (index: number) => `f${pad(Math.floor(index / 10))}/x${pad(index)}.md`;
  for (let index = 0; index < files; index++) yield file(path(index), `${index}\n`);
  yield `\n${commit("feature", "carol", 1767312000)}`;
  for (let index = 0; index < files; index++) yield file(path(index), `${index + 1}\n`);
  yield "\ndone\n";
}

// ---------------------------------------------------------------------------------------------
// Measuring

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** CPU (user + system) and wall milliseconds of one call. */
async function timed<T>(run: () => Promise<T>): Promise<{ cpu: number; wall: number; value: T }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await run();
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / 1000, wall: performance.now() - started, value };
}

interface Sample {
  cpu: number[];
  wall: number[];
  evaluation: number;
  total: number;
  bytes: number;
  conclusion: string;
}

/** Requests that judge the pull request (not the check run, the comment, nor the check after writing). */
function judging(requests: readonly RecordedRequest[]): RecordedRequest[] {
  return requests.filter(
    (request) =>
      !request.path.includes("/access_tokens") &&
      !/check-runs|comments/.test(request.path) &&
      request.operation !== "PullRequestVersion",
  );
}

const bytesOf = (requests: readonly RecordedRequest[]) => requests.reduce((sum, item) => sum + (item.bytes ?? 0), 0);

/** One delivery of `pull_request.opened` to a fresh App against a fresh fake of `repo` at `head`. */
async function deliver(repo: TempRepo, head: string, sample: Sample, keep: boolean): Promise<void> {
  nock.cleanAll();
  const fake = new FakeGitHub(repo, { head });
  fake.install();
  const probot = testProbot();
  const { cpu, wall } = await timed(() =>
    probot.receive({ id: head, name: "pull_request", payload: fake.payload(opened) as never }),
  );
  if (keep) {
    sample.cpu.push(cpu);
    sample.wall.push(wall);
  }
  sample.evaluation = judging(fake.requests).length;
  sample.total = fake.apiRequests.length;
  sample.bytes = bytesOf(fake.apiRequests);
  sample.conclusion = fake.checkRuns[0]?.conclusion ?? "none";
  expect(fake.schemaErrors).toEqual([]);
}

/** Interleaved deliveries: one warm-up each, then RUNS rounds. */
async function deliveries(cases: readonly { repo: TempRepo; head: string }[]): Promise<Sample[]> {
  const samples = cases.map(() => ({ cpu: [], wall: [], evaluation: 0, total: 0, bytes: 0, conclusion: "" }));
  for (let round = 0; round <= RUNS; round++) {
    for (const [at, item] of cases.entries()) await deliver(item.repo, item.head, samples[at]!, round > 0);
  }
  return samples;
}

interface TreeCost {
  requests: number;
  bytes: number;
  cpu: number;
  result: string;
}

/**
 * The trees of the pull request `main...feature`, read one way, `RUNS` times: requests, bytes and
 * median CPU time of the reads of trees (the comparison, which a check asks for anyway, is asked
 * first and not counted): one recursive listing per commit, the walk level by level, or the walk
 * given the files the comparison lists (what the GitHub port does).
 */
async function treeCost(repo: TempRepo, way: "recursive" | "levels" | "walk"): Promise<TreeCost> {
  const cpu: number[] = [];
  let requests = 0;
  let bytes = 0;
  let result = "";
  for (let round = 0; round <= Math.min(RUNS, 3); round++) {
    nock.cleanAll();
    const fake = new FakeGitHub(repo, { head: "feature" });
    fake.install();
    const [base, head] = [fake.sha("main"), fake.sha("feature")];
    const api = apiFor(fake);
    const github = new GitHubRepository(api);
    if (way === "walk") await github.compare(base, head);
    const before = fake.apiRequests.length;
    const spent = await timed(async () => {
      if (way !== "recursive") {
        try {
          return `${(await github.changedFiles(base, head)).length} changed files`;
        } catch (error) {
          if (error instanceof TruncatedTreeError) return "cut short";
          throw error;
        }
      }
      const folders: Folders = new Map();
      const listings = await Promise.all([base, head].map((sha) => api.listing(sha, { recursive: true })));
      if (listings.some((listing) => listing.truncated)) return "cut short: fails closed";
      const trees = listings.map((listing, at) => {
        absorbListing(listing, folders, true);
        return new Tree([base, head][at]!, listing.sha, folders);
      });
      return `${changedFiles(trees[0]!, trees[1]!).length} changed files`;
    });
    if (round > 0) cpu.push(spent.cpu);
    requests = fake.apiRequests.length - before;
    bytes = bytesOf(fake.apiRequests.slice(before));
    result = spent.value;
  }
  return { requests, bytes, cpu: median(cpu), result };
}

/** The port reading a tree of N files: what changed, and a snapshot of every folder. */
async function readTree(repo: TempRepo): Promise<number> {
  nock.cleanAll();
  const fake = new FakeGitHub(repo, { head: "feature" });
  fake.install();
  const [base, head] = [fake.sha("main"), fake.sha("feature")];
  const github = new GitHubRepository(apiFor(fake));
  const spent = await timed(async () => {
    const files = await github.changedFiles(base, head);
    const prefixes = [...new Set(files.map((item) => item.path.slice(0, item.path.indexOf("/") + 1)))];
    await github.readSnapshot(head, { paths: [], prefixes });
  });
  return spent.cpu;
}

// ---------------------------------------------------------------------------------------------
// Reporting

const rows: { measure: string; value: string; target: string; met: boolean }[] = [];
function row(measure: string, value: string, target: string, met: boolean): void {
  rows.push({ measure, value, target, met });
}
const kb = (bytes: number) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(0)} kB`);
const ms = (value: number) => `${value.toFixed(0)} ms`;
const ratio = (value: number) => `${value.toFixed(2)}×`;

it("measures requests, bytes and time per delivery, and growth through the GitHub port", async () => {
  nock.disableNetConnect();
  const started = performance.now();
  const [small, large, monorepo] = await Promise.all([
    imported(taskRepository(SMALL, SMALL / 10, 1)),
    imported(taskRepository(LARGE, LARGE / 10, 2)),
    imported(taskRepository(1000, MONOREPO_FILES, 3)),
  ]);
  const files = (repo: TempRepo) => repo.git("ls-tree", "-r", "--name-only", "main").split("\n").length;
  const sizes = [small, large, monorepo].map(files);
  console.log(`\nrepositories built in ${ms(performance.now() - started)}: ${sizes.join(", ")} files`);

  // Deliveries: 3-task pull requests, the small and the large case interleaved.
  const [atSmall, atLarge] = await deliveries([
    { repo: small, head: "feature" },
    { repo: large, head: "feature" },
  ]);
  const [atMonorepo] = await deliveries([{ repo: monorepo, head: "feature" }]);
  const cases = [
    [`${SMALL} tasks (${sizes[0]} files)`, atSmall!],
    [`${LARGE.toLocaleString("en")} tasks (${sizes[1]} files)`, atLarge!],
    [`monorepo (${sizes[2]} files)`, atMonorepo!],
  ] as const;
  console.log(`\ntaskgate app bench: a 3-task pull request, ${RUNS} deliveries after a warm-up`);
  console.log(
    `${"repository".padEnd(30)} ${"judging".padStart(7)} ${"all".padStart(4)} ${"bytes".padStart(9)} ${"CPU".padStart(8)} ${"wall".padStart(8)}  check`,
  );
  for (const [name, sample] of cases) {
    console.log(
      `${name.padEnd(30)} ${String(sample.evaluation).padStart(7)} ${String(sample.total).padStart(4)} ${kb(sample.bytes).padStart(9)} ${ms(median(sample.cpu)).padStart(8)} ${ms(median(sample.wall)).padStart(8)}  ${sample.conclusion}`,
    );
    row(
      `App, 3-task pull request on ${name}: per delivery`,
      `${sample.evaluation} requests to judge (${sample.total} in all), ${kb(sample.bytes)}, ${ms(median(sample.cpu))} CPU, ${ms(median(sample.wall))} wall, ${sample.conclusion}`,
      "judged (success), not failed closed",
      sample.conclusion === "success",
    );
  }
  row(
    `App: requests to judge a 3-task pull request, ${LARGE.toLocaleString("en")} vs ${SMALL} tasks`,
    `${atLarge!.evaluation} vs ${atSmall!.evaluation} requests`,
    "the same",
    atLarge!.evaluation === atSmall!.evaluation,
  );
  const cpuRatio = median(atLarge!.cpu) / median(atSmall!.cpu);
  const wallRatio = median(atLarge!.wall) / median(atSmall!.wall);
  row(
    `App: delivery to check run, ${LARGE.toLocaleString("en")} / ${SMALL} tasks (CPU)`,
    ratio(cpuRatio),
    "≤ 3×",
    cpuRatio <= 3,
  );
  row(
    `App: delivery to check run, ${LARGE.toLocaleString("en")} / ${SMALL} tasks (wall)`,
    ratio(wallRatio),
    "≤ 3×",
    wallRatio <= 3,
  );

  // The trees of the same pull request, each way.
  console.log(
    `\nthe trees of that pull request: one recursive listing per commit, the walk level by level, the walk given the comparison's files`,
  );
  for (const [name, repo] of [
    [`${SMALL} tasks`, small],
    [`${LARGE.toLocaleString("en")} tasks`, large],
    [`monorepo (${sizes[2]} files)`, monorepo],
  ] as const) {
    const recursive = await treeCost(repo, "recursive");
    const levels = await treeCost(repo, "levels");
    const walk = await treeCost(repo, "walk");
    const show = (cost: TreeCost) =>
      `${cost.requests} request${cost.requests === 1 ? "" : "s"}, ${kb(cost.bytes)}, ${ms(cost.cpu)} CPU: ${cost.result}`;
    console.log(
      `${name.padEnd(30)} recursive: ${show(recursive)}\n${"".padEnd(30)} levels:    ${show(levels)}\n${"".padEnd(30)} walk:      ${show(walk)}`,
    );
    row(
      `GitHub port: trees of a 3-task pull request on ${name}, recursive vs walk`,
      `recursive ${show(recursive)}; walk by levels ${show(levels)}; walk with the comparison's files ${show(walk)}`,
      "walk: same changed files, fewer bytes",
      walk.result === levels.result &&
        !walk.result.startsWith("cut short") &&
        (walk.result === recursive.result || recursive.result.startsWith("cut short")) &&
        walk.bytes < recursive.bytes,
    );
  }

  // Growth through the port: a pull request touching N tasks against 2N.
  const growth = await imported(growthRepository(2 * GROWTH_TASKS + 10, [GROWTH_TASKS, 2 * GROWTH_TASKS]));
  const [touchN, touch2N] = await deliveries([
    { repo: growth, head: `n${GROWTH_TASKS}` },
    { repo: growth, head: `n${2 * GROWTH_TASKS}` },
  ]);
  const touched = median(touch2N!.cpu) / median(touchN!.cpu);
  console.log(
    `\ngrowth: a pull request touching ${GROWTH_TASKS} tasks ${ms(median(touchN!.cpu))} CPU (${touchN!.evaluation} requests), ${2 * GROWTH_TASKS} tasks ${ms(median(touch2N!.cpu))} CPU (${touch2N!.evaluation} requests): ${ratio(touched)}`,
  );
  row(
    `GitHub port: a pull request touching ${2 * GROWTH_TASKS} vs ${GROWTH_TASKS} tasks (CPU, App delivery)`,
    ratio(touched),
    "≤ 2.2×",
    touched <= 2.2 && touchN!.conclusion === "success" && touch2N!.conclusion === "success",
  );

  // Growth through the port: a tree of N files against 2N.
  const [treeN, tree2N] = await Promise.all([
    imported(treeRepository(TREE_FILES)),
    imported(treeRepository(2 * TREE_FILES)),
  ]);
  const times: [number[], number[]] = [[], []];
  for (let round = 0; round <= RUNS; round++) {
    const [one, two] = [await readTree(treeN), await readTree(tree2N)];
    if (round === 0) continue;
    times[0].push(one);
    times[1].push(two);
  }
  const treeRatio = median(times[1]) / median(times[0]);
  console.log(
    `growth: a tree of ${TREE_FILES} files ${ms(median(times[0]))} CPU, ${2 * TREE_FILES} files ${ms(median(times[1]))} CPU: ${ratio(treeRatio)}`,
  );
  row(
    `GitHub port: a tree of ${2 * TREE_FILES} vs ${TREE_FILES} changed files, read and compared (CPU)`,
    ratio(treeRatio),
    "≤ 2.2×",
    treeRatio <= 2.2,
  );

  for (const repo of [small, large, monorepo, growth, treeN, tree2N]) repo.remove();
  console.log(`\napp bench took ${ms(performance.now() - started)}`);
  for (const item of rows) console.log(`BENCH_ROW ${JSON.stringify(item)}`);
});
