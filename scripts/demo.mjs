#!/usr/bin/env node
// taskgate in six pull requests: copies examples/phases into a throwaway git repository, opens PR
// branches against `main` and runs `taskgate check` on each. Exits 1 if any outcome is unexpected,
// so it doubles as a smoke test. Usage: node scripts/demo.mjs [--keep]  (--keep: leave the repo).
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { devNull, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(ROOT, "bin", "taskgate.js");
const SAMPLE = join(ROOT, "examples", "phases");

const EXIT_MEANING = {
  0: "pass: no violations, nothing pending",
  1: "fail: violations (they block the pull request)",
  2: "usage or configuration error",
  3: "waiting for approval: an eligible reviewer must approve the pull request",
};

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
const repo = join(tmp, "acme-web");
const results = [];
let crashed = false;
try {
  run();
} catch (error) {
  crashed = true;
  console.error(`\ndemo: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (keep) {
    console.log(`\nThe demo repository is kept at ${repo}`);
    console.log(
      `Try: node ${relative(process.cwd(), CLI) || CLI} explain rate-limit --repo ${repo} --ref carol/rate-limit-research`,
    );
  } else {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const failed = results.filter((result) => !result.ok);
if (crashed || failed.length > 0) {
  console.log(`\nDemo FAILED: ${failed.map((result) => result.title).join("; ") || "the demo itself crashed"}`);
  process.exit(1);
}
console.log(`\nAll ${results.length} checks ended as expected.`);

function run() {
  // The sample repository, as it is on `main`.
  mkdirSync(repo);
  cpSync(SAMPLE, repo, { recursive: true });
  git(["init", "-q"]);
  git(["symbolic-ref", "HEAD", "refs/heads/main"]);
  git(["config", "user.name", "alice"]);
  git(["config", "user.email", "alice@example.com"]);
  git(["config", "commit.gpgsign", "false"]);
  commit("Initial commit: examples/phases", "alice");

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

  // 5. What the bot commits: the approved state and an approval line naming the reviewer.
  write("tasks/rate-limit/.state", "research:approved\n");
  write("tasks/rate-limit/.state.approvals", `research:approved|${submittedAt}|bob\n`);
  commit("taskgate: record research approval of rate-limit by bob", "taskgate[bot]");
  check(
    "5. PASS: the bot has recorded the approval",
    "taskgate[bot] commits research:approved and the line research:approved|...|bob; checked with the same PR.json",
    0,
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
  const meaning = EXIT_MEANING[code] ?? (code === null ? `killed by ${result.signal}` : "unknown exit code");
  console.log(
    `exit ${code}: ${meaning}${ok ? "  [as expected]" : `  [UNEXPECTED: expected exit ${expected}, ${EXIT_MEANING[expected]}]`}`,
  );
  if (note && ok) console.log(note);
  results.push({ title, ok });
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

function branch(name) {
  git(["checkout", "-q", "-b", name, "main"]);
}

function read(path) {
  return readFileSync(join(repo, path), "utf8");
}

function write(path, text) {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
}
