/**
 * The GitHub App's cost per delivery, against the stateful fake of GitHub the tests use: requests to
 * judge a pull request (the evaluation), all requests of the delivery (with the check run and the
 * comment), and the time the delivery takes in process, for a small pull request, a 300-file one
 * with 50 tasks and a 3,000-file one. Medians of BENCH_RUNS runs (default 5). Run with `npm run bench`.
 */
import nock from "nock";
import { expect, it } from "vitest";
import { FakeGitHub } from "../test/helpers/fake-github.js";
import { tempRepo } from "../test/helpers/git.js";
import { example, testProbot } from "../test/helpers/probot.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BUDGET = 6;
const opened = example("pull_request", "opened");

function pullRequest(tasks: number, files: number) {
  const repo = tempRepo();
  const base: Record<string, string> = { ".github/taskgate.yml": "preset: phases\n" };
  for (let index = 0; index < tasks; index++) {
    base[`tasks/t${index}/.state`] = "implement\n";
    base[`tasks/t${index}/SPEC.md`] = `spec ${index}\n`;
  }
  const project = Math.max(0, files - 2 * tasks);
  for (let index = 0; index < project; index++)
    base[`src/m${index % 50}/f${index}.ts`] = `export const v = ${index};\n`;
  repo.write(base);
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  const head: Record<string, string> = {};
  for (let index = 0; index < tasks; index++) {
    head[`tasks/t${index}/.state`] = "bug_find\n";
    head[`tasks/t${index}/BUG_REPORT.md`] = `bugs ${index}\n`;
  }
  for (let index = 0; index < project; index++)
    head[`src/m${index % 50}/f${index}.ts`] = `export const v = ${index + 1};\n`;
  repo.write(head);
  repo.commit("work", "carol");
  return repo;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

it("measures requests and time per delivery", async () => {
  nock.disableNetConnect();
  const rows: { name: string; files: number; evaluation: number; total: number; ms: number }[] = [];
  for (const [name, tasks, files] of [
    ["small PR (1 task, 2 files)", 1, 2],
    ["300 files, 50 tasks", 50, 300],
    ["3,000 files, 50 tasks", 50, 3000],
  ] as const) {
    const repo = pullRequest(tasks, files);
    const times: number[] = [];
    let evaluation = 0;
    let total = 0;
    for (let run = 0; run <= RUNS; run++) {
      nock.cleanAll();
      const fake = new FakeGitHub(repo, { head: "feature" });
      fake.install();
      const probot = testProbot();
      const started = performance.now();
      await probot.receive({ id: String(run), name: "pull_request", payload: fake.payload(opened) as never });
      if (run > 0) times.push(performance.now() - started);
      const requests = fake.apiRequests;
      total = requests.length;
      evaluation = requests.filter(
        (request) => !/check-runs|comments/.test(request.path) && request.operation !== "PullRequestVersion",
      ).length;
      expect(fake.checkRuns[0]!.conclusion).toBe("success");
    }
    rows.push({ name, files, evaluation, total, ms: median(times) });
    repo.remove();
  }
  console.log(
    `\ntaskgate app bench: ${RUNS} run(s) per pull request after 1 warm-up, in process against the fake GitHub`,
  );
  console.log(
    `${"pull request".padEnd(30)} ${"evaluation".padStart(10)} ${"all".padStart(5)} ${"median ms".padStart(10)}`,
  );
  for (const row of rows) {
    console.log(
      `${row.name.padEnd(30)} ${String(row.evaluation).padStart(10)} ${String(row.total).padStart(5)} ${row.ms.toFixed(1).padStart(10)}`,
    );
  }
  const worst = Math.max(...rows.map((row) => row.evaluation));
  console.log(`evaluation requests at most ${worst}, target <= ${BUDGET}: ${worst <= BUDGET ? "ok" : "MISSED"}`);
  console.log(`BENCH_JSON ${JSON.stringify({ bench: "app", runs: RUNS, rows })}`);
});
