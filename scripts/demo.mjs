#!/usr/bin/env node
// taskgate in twelve scenarios: copies examples/phases, then examples/board, into throwaway git
// repositories, opens PR branches against `main` and runs `taskgate check` on each (for the board,
// `taskgate render` too). Exits 1 if any outcome is unexpected, so it doubles as a smoke test.
// Usage: node scripts/demo.mjs [--keep]  (--keep: leave the repositories).
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { devNull, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(ROOT, "bin", "taskgate.js");
const EXAMPLES = join(ROOT, "examples");

const EXIT_MEANING = {
  0: "pass: no violations, nothing pending",
  1: "fail: violations (they block the pull request)",
  2: "usage or configuration error",
  3: "waiting for approval: an eligible reviewer must approve the pull request",
};
// `taskgate render` uses the same codes with its own meaning.
const RENDER_MEANING = { ...EXIT_MEANING, 0: "the status files are up to date", 1: "stale status files" };

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== "--keep");
if (unknown.length > 0) {
  console.error(`demo: unknown argument ${unknown[0]}\nusage: node scripts/demo.mjs [--keep]`);
  process.exit(2);
}
const keep = args.includes("--keep");
// A fixed clock makes commit ids, and so the output, the same on every run.
let clock = Date.parse("2025-03-10T09:00:00Z");

ensureBuilt();

const tmp = mkdtempSync(join(tmpdir(), "taskgate-demo-"));
const repos = { phases: join(tmp, "acme-web"), board: join(tmp, "acme-notes") };
// The repository the helpers below work in: the phases sample first, then the board sample.
let repo = repos.phases;
let part = "phases";
const results = [];
let crashed = false;
try {
  await runPhases();
  runBoard();
} catch (error) {
  crashed = true;
  console.error(`\ndemo: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (keep) {
    const cli = relative(process.cwd(), CLI) || CLI;
    console.log(`\nThe demo repositories are kept at ${repos.phases} and ${repos.board}`);
    console.log(`Try: node ${cli} explain rate-limit --repo ${repos.phases} --ref carol/rate-limit-research`);
    console.log(`     node ${cli} explain API-2 --repo ${repos.board} --ref carol/api-2-submit`);
  } else {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const failed = results.filter((result) => !result.ok);
if (crashed || failed.length > 0) {
  const titles = failed.map((result) => `${result.part}: ${result.title}`);
  console.log(`\nDemo FAILED: ${titles.join("; ") || "the demo itself crashed"}`);
  process.exit(1);
}
console.log(`\nAll ${results.length} checks ended as expected.`);

async function runPhases() {
  setUp("phases", repos.phases);

  console.log(`taskgate demo: a sample repository (examples/phases) with four tasks on main:`);
  console.log(
    "  login-form at implement, rate-limit at research, password-reset at design:awaiting_approval, audit-log at new.",
  );
  console.log("Each scenario below is a pull request by carol into main, checked with");
  console.log("  taskgate check --repo DIR --base main --head BRANCH [--pr PR.json]");
  check("Initial state", "taskgate audit: every task on main is consistent", 0, [
    "audit",
    "--repo",
    repo,
    "--ref",
    "main",
  ]);

  // 1. A task jumps over its approval gate and touches a framework file.
  branch("carol/rate-limit-skip");
  write("tasks/rate-limit/.state", "implement\n");
  write(
    "src/http/server.js",
    read("src/http/server.js").replace("// A minimal", "// TODO: rate limit failed logins.\n// A minimal"),
  );
  write(".github/workflows/ci.yml", `${read(".github/workflows/ci.yml")}      - run: npm run lint\n`);
  commit("rate-limit: start implementing");
  check(
    "1. FAIL: rate-limit skips its approval gate",
    "rate-limit goes research -> implement, edits src/http/server.js and .github/workflows/ci.yml",
    1,
    checkArgs("carol/rate-limit-skip"),
  );

  // 2. A task moves one legal step with its artifact and a project change.
  branch("carol/login-form-bug-find");
  write("tasks/login-form/.state", "bug_find\n");
  write(
    "tasks/login-form/BUG_REPORT.md",
    "# Bugs found\n\n1. `login()` treated `Alice` and `alice` as different users. Fixed: usernames are lower-cased.\n",
  );
  write(
    "src/auth/login.js",
    read("src/auth/login.js").replace("store.findUser(username)", "store.findUser(String(username).toLowerCase())"),
  );
  commit("login-form: bug hunt, normalise usernames");
  check(
    "2. PASS: login-form moves implement -> bug_find",
    "adds tasks/login-form/BUG_REPORT.md and fixes src/auth/login.js",
    0,
    checkArgs("carol/login-form-bug-find"),
  );

  // 3. A task finishes research and stops at the gate.
  branch("carol/rate-limit-research");
  write(
    "tasks/rate-limit/SPEC.md",
    "# Rate limit on /login\n\nAt most 5 failed logins per username and per IP address in 15 minutes;\n" +
      "further attempts answer 429 with a Retry-After header. A successful login resets the username's count.\n",
  );
  write("tasks/rate-limit/.state", "research:awaiting_approval\n");
  const head = commit("rate-limit: research done, requesting approval");
  check(
    "3. WAITING: rate-limit asks for approval of its research",
    "rate-limit goes research -> research:awaiting_approval with a finished SPEC.md; no review yet",
    3,
    checkArgs("carol/rate-limit-research"),
  );

  // 4. The same pull request once bob (write permission) has approved its head commit.
  const submittedAt = "2025-03-10T15:30:00Z";
  const prFile = join(tmp, "pr-approved.json");
  const pr = {
    author: "carol",
    reviews: [{ user: { login: "bob" }, state: "APPROVED", commit_id: head, submitted_at: submittedAt, body: "LGTM" }],
    permissions: { bob: "write", carol: "write" },
  };
  writeFileSync(prFile, `${JSON.stringify(pr, null, 2)}\n`);
  check(
    "4. PASS: bob approves the research",
    `--pr ${relative(tmp, prFile)}: author carol; bob (write permission) APPROVED commit ${head.slice(0, 7)}`,
    0,
    checkArgs("carol/rate-limit-research", prFile),
    "taskgate's bot would now commit the record above on the PR branch (see scenario 5).",
  );

  // 5. What the bot commits: the approved state and an approval line naming the reviewer, written
  // by taskgate's own record writer and committed by the bot's account.
  const botSha = await recordDecisions("carol/rate-limit-research", pr);
  const botPrFile = join(tmp, "pr-recorded.json");
  writeFileSync(
    botPrFile,
    `${JSON.stringify({ ...pr, commits: [{ sha: botSha, author: { login: "taskgate[bot]" } }] }, null, 2)}\n`,
  );
  check(
    "5. PASS: the bot has recorded the approval",
    `taskgate[bot] commits research:approved and the line research:approved|...|bob; ${relative(tmp, botPrFile)} adds GitHub's attribution of commit ${botSha.slice(0, 7)} to taskgate[bot]`,
    0,
    checkArgs("carol/rate-limit-research", botPrFile),
  );
  check(
    "5b. FAIL: the same commit without GitHub naming the bot",
    `${relative(tmp, prFile)} has no commits: a git author name "taskgate[bot]" proves nothing, so the line is a forgery`,
    1,
    checkArgs("carol/rate-limit-research", prFile),
  );

  // 6. Without the review, the same approval line is a forgery.
  branch("carol/rate-limit-forged");
  write("tasks/rate-limit/.state", "research:approved\n");
  write("tasks/rate-limit/.state.approvals", `research:approved|${submittedAt}|alice\n`);
  commit("rate-limit: research approved");
  check(
    "6. FAIL: carol writes the approval herself",
    "rate-limit goes research -> research:approved with an approval line naming alice, but alice never reviewed",
    1,
    checkArgs("carol/rate-limit-forged"),
  );
}

function runBoard() {
  setUp("board", repos.board);

  console.log(`\n\ntaskgate demo, part 2: the board preset (examples/board): five tasks in planning/tasks.json,`);
  console.log("their status, owner and history in state/tasks.json (revision 4) and rendered status in docs/status/:");
  console.log("  API-1 done, API-3 in_progress (dave/agent-1), API-2, UI-1 and UI-2 todo; quinn (role qa) reviews.");
  check("Initial state", "taskgate audit: the ledger, its evidence and the rendered status files agree", 0, [
    "audit",
    "--repo",
    repo,
    "--ref",
    "main",
  ]);

  // a. A claim for one of carol's agents, and work inside the task's paths.
  branch("carol/api-2");
  ledger((board) => {
    board.tasks["API-2"] = {
      status: "in_progress",
      owner: "carol/agent-7",
      history: [entry("carol/agent-7", "claim", "todo", "in_progress")],
    };
  });
  write(
    "src/api/notes/list.js",
    "// GET /notes?limit=N&after=ID: one page of notes, newest first, and the id to continue after.\n" +
      "export async function listNotes(store, { limit = 20, after } = {}) {\n" +
      "  const notes = (await store.allNotes()).toSorted((a, b) => b.createdAt - a.createdAt);\n" +
      "  const start = after === undefined ? 0 : notes.findIndex((note) => note.id === after) + 1;\n" +
      "  const page = notes.slice(start, start + Math.min(Math.max(limit, 1), 100));\n" +
      "  return { notes: page, next: start + page.length < notes.length ? page.at(-1).id : null };\n" +
      "}\n",
  );
  commit("API-2: claim, paginate GET /notes");
  check(
    "a. PASS: carol/agent-7 claims API-2",
    "API-2 (its dependency API-1 is done) todo -> in_progress, revision 4 -> 5; edits src/api/notes/list.js",
    0,
    checkArgs("carol/api-2"),
  );

  // b. A claim in someone else's name, before its dependency is done, touching a shared file.
  branch("carol/ui-1-early");
  ledger((board) => {
    board.tasks["UI-1"] = {
      status: "in_progress",
      owner: "dave",
      history: [entry("dave", "claim", "todo", "in_progress")],
    };
  });
  write("src/ui/app.js", read("src/ui/app.js").replace('  "/": ', '  "/notes": () => "<ul></ul>",\n  "/": '));
  commit("UI-1: claim for dave, add the /notes route");
  check(
    "b. FAIL: carol claims UI-1 for dave",
    "UI-1 depends on API-2 (todo) and is claimed for dave; the PR edits src/ui/app.js, outside src/ui/notes/**",
    1,
    checkArgs("carol/ui-1-early"),
  );

  // c. carol's agent submits API-2 with its evidence and handoff, and waits for qa.
  branch("carol/api-2-submit", "carol/api-2");
  write(
    "state/evidence/API-2-tests.md",
    "# API-2: pagination\n\n`npm test`: 17 passed, 0 failed.\n\n" +
      "- `limit` defaults to 20 and is clamped to 1-100.\n- `after` continues after the given note id.\n",
  );
  write(
    "state/handoffs/API-2.md",
    "# API-2 handoff\n\n`listNotes(store, { limit, after })` now returns `{ notes, next }`; `next` is null on the " +
      "last page.\nUI-1 can fetch `/notes?after=<next>` for its 'More' button.\n",
  );
  ledger((board) => {
    const task = board.tasks["API-2"];
    task.status = "review";
    task.history.push(
      entry("carol/agent-7", "submit", "in_progress", "review", {
        evidence: "state/evidence/API-2-tests.md",
        handoff: "state/handoffs/API-2.md",
      }),
    );
  });
  const head = commit("API-2: submit for review");
  check(
    "c. WAITING: carol/agent-7 submits API-2",
    "API-2 in_progress -> review with evidence and handoff, revision 5 -> 6; no review yet",
    3,
    checkArgs("carol/api-2-submit"),
  );

  // d. The same pull request once quinn (role qa, write permission) has approved its head commit.
  const prFile = join(tmp, "pr-api-2-approved.json");
  const pr = {
    author: "carol",
    reviews: [
      {
        user: { login: "quinn" },
        state: "APPROVED",
        commit_id: head,
        submitted_at: "2025-03-10T16:45:00Z",
        body: "Checked the paging edge cases.",
      },
    ],
    permissions: { quinn: "write", carol: "write" },
  };
  writeFileSync(prFile, `${JSON.stringify(pr, null, 2)}\n`);
  check(
    "d. PASS: quinn approves API-2",
    `--pr ${relative(tmp, prFile)}: author carol; quinn (qa, write permission) APPROVED commit ${head.slice(0, 7)}`,
    0,
    checkArgs("carol/api-2-submit", prFile),
    "taskgate's bot would now commit the record above (API-2 review -> done, by quinn) on the PR branch.",
  );

  // e. The rendered status files of the branch of scenario a, in its work tree.
  git(["checkout", "-q", "carol/api-2"]);
  const story = "in the work tree of carol/api-2 (scenario a)";
  check(
    "e. RENDER: the claim left docs/status/ stale",
    `${story}: the ledger is at revision 5, the status files say 4`,
    1,
    ["render", "--repo", repo, "--check"],
  );
  check("e. RENDER: taskgate render rewrites them", story, 0, ["render", "--repo", repo]);
  check(
    "e. RENDER: up to date",
    `${story}, after taskgate render`,
    0,
    ["render", "--repo", repo, "--check"],
    "Committed with the claim, they keep `taskgate audit` clean once the pull request is merged.",
  );
}

function checkArgs(head, prFile) {
  return ["check", "--repo", repo, "--base", "main", "--head", head, ...(prFile ? ["--pr", prFile] : [])];
}

/** Runs the CLI, prints its output and whether the exit code is the expected one. */
function check(title, story, expected, cliArgs, note) {
  console.log(`\n=== ${title}`);
  console.log(`    ${story}`);
  const shown = cliArgs.map((arg) => (arg === repo ? "DIR" : arg.startsWith(tmp) ? relative(tmp, arg) : arg));
  console.log(`$ taskgate ${shown.join(" ")}`);
  const result = spawnSync(process.execPath, [CLI, ...cliArgs], { encoding: "utf8" });
  if (result.error) throw result.error;
  const output = `${result.stdout}${result.stderr}`.trimEnd();
  if (output) console.log(output.replace(/^/gm, "  "));
  const code = result.status;
  const ok = code === expected;
  const meanings = cliArgs[0] === "render" ? RENDER_MEANING : EXIT_MEANING;
  const meaning = meanings[code] ?? (code === null ? `killed by ${result.signal}` : "unknown exit code");
  console.log(
    `exit ${code}: ${meaning}${ok ? "  [as expected]" : `  [UNEXPECTED: expected exit ${expected}, ${meanings[expected]}]`}`,
  );
  if (note && ok) console.log(note);
  results.push({ part, title, ok });
}

/**
 * Does what the bot does on an approving review: checks the branch with the PR's reviews, writes the
 * records with taskgate's record writer and commits them as the bot. Returns the commit id.
 */
async function recordDecisions(head, pr) {
  const load = (file) => import(pathToFileURL(join(ROOT, "dist", file)).href);
  const { checkPullRequest, loadConfig, writeRecords } = await load("core/index.js");
  const { GitRepository } = await load("git/repository.js");
  git(["checkout", "-q", head]);
  const gitRepo = await GitRepository.open(repo);
  const report = await checkPullRequest(gitRepo, { base: "main", head, pr });
  const { config } = await loadConfig(gitRepo, "main");
  const paths = [];
  for (const record of report.records) paths.push(...tasksFilesOf(record.task));
  const snapshot = await gitRepo.readSnapshot(head, { paths, prefixes: [] });
  for (const [path, content] of writeRecords(config, snapshot, report.records)) write(path, content);
  const sha = commit(`taskgate: record ${report.records.map((r) => `${r.task} ${r.to}`).join(", ")}`, "taskgate[bot]");
  git(["checkout", "-q", "main"]);
  return sha;
}

function tasksFilesOf(task) {
  return [`tasks/${task}/.state`, `tasks/${task}/.state.approvals`];
}

/** Copies examples/<sample> into a new git repository at `dir` and commits it as `main` by alice. */
function setUp(sample, dir) {
  repo = dir;
  part = sample;
  mkdirSync(repo);
  cpSync(join(EXAMPLES, sample), repo, { recursive: true });
  git(["init", "-q"]);
  git(["symbolic-ref", "HEAD", "refs/heads/main"]);
  git(["config", "user.name", "alice"]);
  git(["config", "user.email", "alice@example.com"]);
  git(["config", "commit.gpgsign", "false"]);
  commit(`Initial commit: examples/${sample}`, "alice");
}

function ensureBuilt() {
  if (existsSync(join(ROOT, "dist", "cli", "main.js"))) return;
  console.log("dist/ is missing: running `npm run build` first...");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const build = spawnSync(npm, ["run", "build"], { cwd: ROOT, stdio: "inherit", shell: process.platform === "win32" });
  if (build.status !== 0 || !existsSync(join(ROOT, "dist", "cli", "main.js"))) {
    console.error("demo: the build failed; run `npm ci && npm run build` in the taskgate repository, then retry.");
    process.exit(1);
  }
}

/** Runs git in the demo repository with a fixed identity, ignoring the user's global and system config. */
function git(gitArgs, who = "carol") {
  const date = new Date(clock).toISOString();
  return execFileSync("git", gitArgs, {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: devNull,
      GIT_AUTHOR_NAME: who,
      GIT_AUTHOR_EMAIL: `${who.replace(/\W/g, "")}@example.com`,
      GIT_COMMITTER_NAME: who,
      GIT_COMMITTER_EMAIL: `${who.replace(/\W/g, "")}@example.com`,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
  }).trim();
}

function commit(message, who = "carol") {
  clock += 10 * 60_000;
  git(["add", "-A"], who);
  git(["commit", "-q", "-m", message], who);
  return git(["rev-parse", "HEAD"], who);
}

function branch(name, from = "main") {
  git(["checkout", "-q", "-b", name, from]);
}

function read(path) {
  return readFileSync(join(repo, path), "utf8");
}

function write(path, text) {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
}

/** Edits the board's ledger (state/tasks.json) and raises its revision by the history entries added. */
function ledger(change) {
  const board = JSON.parse(read("state/tasks.json"));
  const entries = (value) => Object.values(value.tasks).reduce((sum, task) => sum + task.history.length, 0);
  const before = entries(board);
  change(board);
  board.revision += entries(board) - before;
  write("state/tasks.json", `${JSON.stringify(board, null, 2)}\n`);
}

/** A history entry, stamped with the time of the next commit. */
function entry(by, action, from, to, extra = {}) {
  const at = new Date(clock + 10 * 60_000).toISOString().replace(".000Z", "Z");
  return { at, by, action, from, to, ...extra };
}
