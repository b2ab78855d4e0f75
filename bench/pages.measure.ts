/**
 * The repository page's server time through the App's renderer (`src/app/pages/views.ts`), its GitHub
 * reads answered by the stateful fake of GitHub the tests use (a real git repository behind nock):
 * a board of BENCH_TASKS tasks (default 10,000; a fifth waiting for review by a role with a team)
 * and a phases store of as many tasks (`test/helpers/scale.ts`).
 *
 * For each: the requests the page costs, and, as medians of BENCH_RUNS renders (default 5) after a
 * warm-up, the time from the renderer's call to its HTML and the CPU time of the process over it.
 * Both include everything the App does (its GitHub client, the JSON it parses, the reads, the views);
 * the fake's own share (building GitHub's answers from git, which GitHub does on its side) is
 * measured around each of its answers (its `dispatch`) and taken out: "server time" is the App's
 * part (turning an answer into JSON text stays in it, which overstates it slightly). One
 * `BENCH_ROW {...}` line per figure. Run with `npm run bench` (`BENCH_ONLY=pages-app`).
 */
import { performance } from "node:perf_hooks";
import nock from "nock";
import { expect, it } from "vitest";
import { repositoryPage } from "../test/helpers/pages.js";
import { kinds } from "../test/github/helpers.js";
import { FakeGitHub } from "../test/helpers/fake-github.js";
import { importedRepo, phasesTasks, reviewBoard } from "../test/helpers/scale.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TASKS = Number(process.env.BENCH_TASKS ?? 10_000);
const TARGET_MS = 1000;

function phasesFiles(count: number): Map<string, string> {
  const files = phasesTasks(count);
  files.set(
    ".github/taskgate.yml",
    'preset: phases\nroles:\n  leads: [lee, "@acme/qa"]\napprovals:\n  approvers: ["role:leads"]\n',
  );
  return files;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const ms = (value: number) => `${Math.round(value)} ms`;

interface Render {
  readonly wall: number;
  readonly cpu: number;
  readonly fakeWall: number;
  readonly fakeCpu: number;
  readonly reads: string[];
  readonly bytes: number;
}

/** One render of the repository page, with the fake's share of its time measured around each answer. */
async function render(fake: FakeGitHub): Promise<Render> {
  let fakeWall = 0;
  let fakeCpu = 0;
  // Every answer of the fake goes through its `dispatch` (GitHub's work: git reads, the payload).
  const faked = fake as unknown as { dispatch: (...args: unknown[]) => unknown };
  const dispatch = faked.dispatch;
  faked.dispatch = (...args: unknown[]) => {
    const [start, cpu] = [performance.now(), process.cpuUsage()];
    try {
      return dispatch.apply(fake, args);
    } finally {
      const used = process.cpuUsage(cpu);
      fakeWall += performance.now() - start;
      fakeCpu += (used.user + used.system) / 1000;
    }
  };
  const before = fake.requests.length;
  const [start, cpu] = [performance.now(), process.cpuUsage()];
  const html = await repositoryPage(fake);
  const used = process.cpuUsage(cpu);
  const wall = performance.now() - start;
  faked.dispatch = dispatch;
  expect(html).toContain(`Tasks (`);
  return {
    wall,
    cpu: (used.user + used.system) / 1000,
    fakeWall,
    fakeCpu,
    reads: kinds(fake.requests.slice(before)),
    bytes: html!.length,
  };
}

it("the repository page's server time through the App", async () => {
  nock.disableNetConnect();
  const rows: { measure: string; value: string; target: string; met: boolean }[] = [];
  for (const [preset, files] of [
    ["board", (count: number) => reviewBoard(count)],
    ["phases", phasesFiles],
  ] as const) {
    const repo = importedRepo(files(TASKS));
    const fake = new FakeGitHub(repo, { head: "main", name: `${preset}-bench` });
    fake.install();
    fake.teams["@acme/qa"] = ["rita", "sam"];
    const runs: Render[] = [];
    for (let round = 0; round <= RUNS; round++) {
      const run = await render(fake);
      if (round > 0) runs.push(run);
    }
    const app = median(runs.map((run) => run.wall - run.fakeWall));
    const appCpu = median(runs.map((run) => run.cpu - run.fakeCpu));
    const reads = runs[0]!.reads;
    console.log(
      `${preset}, ${TASKS} tasks: ${reads.length} requests (${reads.join(", ")}); ` +
        `request to response ${ms(median(runs.map((run) => run.wall)))} of which the fake ${ms(median(runs.map((run) => run.fakeWall)))}; ` +
        `CPU ${ms(median(runs.map((run) => run.cpu)))} of which the fake ${ms(median(runs.map((run) => run.fakeCpu)))}; ` +
        `first page ${Math.round(runs[0]!.bytes / 1024)} KiB`,
    );
    rows.push(
      {
        measure: `pages: repository page of a ${TASKS}-task ${preset} through the App, server time (median, GitHub's answers excluded)`,
        value: ms(app),
        target: `< ${TARGET_MS} ms`,
        met: app < TARGET_MS,
      },
      {
        measure: `pages: that page's CPU time in the App (median)`,
        value: ms(appCpu),
        target: `< ${TARGET_MS} ms`,
        met: appCpu < TARGET_MS,
      },
      {
        measure: `pages: requests of that page (${TASKS} tasks)`,
        value: String(reads.length),
        target: preset === "board" ? "4 (head, listing, batch, team)" : "as for 100 tasks, but for folders GitHub cuts",
        met: preset === "board" ? reads.length === 4 : reads.filter((kind) => kind === "Batch").length <= 2,
      },
    );
    nock.cleanAll();
    repo.remove();
  }
  for (const item of rows) console.log(`BENCH_ROW ${JSON.stringify(item)}`);
});
