/**
 * The repositories the browser tests show: a board with tasks in every status, several owners and
 * roles, and tasks that wait on others (optionally with hostile titles), its pull request that
 * submits one task; a phases repository whose pull request makes one legal move and one illegal.
 */
import type { Definition, LedgerEntry } from "../../src/core/board/formats.js";
import { board, claimed, def, entry, escalated, inReview, step } from "../helpers/board.js";
import type { FakeGitHub } from "../helpers/fake-github.js";
import type { TempRepo } from "../helpers/git.js";
import { TOKEN } from "../pages/helpers.js";

export { TOKEN };

export const BOARD_CONFIG =
  "preset: board\nroles:\n  qa: [quinn]\n  backend: [bob, carol, dave]\n  frontend: [erin, frank]\n";

/** The board's tasks: id → title, status, owner, role (as the page shows them). */
export const BOARD_TASKS = [
  { id: "API-1", title: "List the notes", state: "done", owner: "—", role: "backend" },
  { id: "API-2", title: "Paginate the notes", state: "review", owner: "carol/agent-1", role: "backend" },
  { id: "API-3", title: "Session middleware", state: "in_progress", owner: "dave/agent-1", role: "backend" },
  { id: "UI-1", title: "Notes list page", state: "todo", owner: "—", role: "frontend" },
  { id: "UI-2", title: "Sign-in page", state: "blocked", owner: "erin", role: "frontend" },
  { id: "OPS-1", title: "Deploy to staging", state: "todo", owner: "—", role: "backend" },
] as const;

/**
 * Text that would run, or become an element, if a page did not escape it: each piece in one task's
 * title (and all together in a review's body), and a token-shaped secret that must show redacted.
 */
export const HOSTILE_PIECES = [
  `<script>alert("script")</script>`,
  `<img src=x onerror=alert("img")>`,
  `"><svg onload=alert("svg")>`,
  `<a href="javascript:alert('link')">click me</a>`,
  `[docs](javascript:alert("markdown"))`,
] as const;
export const SECRET_TEXT = `deploy with ${TOKEN} now`;

function definitions(titles: Readonly<Record<string, string>>): Definition[] {
  const paths = (id: string) => [`src/${id.toLowerCase()}/**`];
  return [
    def("API-1", { stage: "M1-api", paths: paths("API-1") }),
    def("API-2", { stage: "M1-api", depends_on: ["API-1"], paths: paths("API-2") }),
    def("API-3", { stage: "M1-api", paths: paths("API-3") }),
    def("UI-1", { role: "frontend", stage: "M2-ui", depends_on: ["API-2"], paths: paths("UI-1") }),
    def("UI-2", { role: "frontend", stage: "M2-ui", depends_on: ["API-3"], paths: paths("UI-2") }),
    def("OPS-1", { stage: "M3-ops", paths: paths("OPS-1") }),
  ].map((definition) => {
    const shown = BOARD_TASKS.find((task) => task.id === definition.id)!;
    return { ...definition, title: titles[definition.id] ?? shown.title };
  });
}

function ledger(): Record<string, LedgerEntry> {
  return {
    "API-1": entry("done", {
      history: [
        step("claim", "todo", "in_progress", "bob/agent-2"),
        step("submit", "in_progress", "review", "bob/agent-2", { evidence: "state/evidence/API-1.md" }),
        step("approve", "review", "done", "quinn"),
      ],
    }),
    "API-2": inReview("carol/agent-1", "state/evidence/API-2.md"),
    "API-3": claimed("dave/agent-1"),
    "UI-1": entry("todo"),
    "UI-2": escalated("erin", ["API-3"], { owner: "erin" }),
    "OPS-1": entry("todo"),
  };
}

/**
 * A board on `main` (titles replaced by `titles`, by id), and `feature`, where dave/agent-1
 * submits API-3 for review.
 */
export function boardRepository(repo: TempRepo, titles: Readonly<Record<string, string>> = {}): void {
  const evidence = { "state/evidence/API-1.md": "npm test: 8 passed\n", "state/evidence/API-2.md": "npm test\n" };
  repo.write({
    ".github/taskgate.yml": BOARD_CONFIG,
    ...(board(definitions(titles), ledger(), 7, evidence) as Record<string, string>),
    "src/api-3/session.ts": "export const session = 1;\n",
  });
  repo.commit("the board", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  const submitted = {
    ...ledger(),
    "API-3": inReview("dave/agent-1", "state/evidence/API-3.md"),
  };
  repo.write({
    ...(board(definitions(titles), submitted, 8, evidence) as Record<string, string>),
    "state/evidence/API-3.md": "npm test: 12 passed\n",
    "state/handoffs/API-3.md": "ready for review\n",
    "src/api-3/session.ts": "export const session = 2;\n",
  });
  repo.commit("submit API-3", "dave");
  repo.git("checkout", "-q", "main");
}

/** The board's hostile titles: one piece per task, the secret in UI-2's. */
export const HOSTILE_TITLES: Readonly<Record<string, string>> = {
  "API-1": HOSTILE_PIECES[0],
  "API-2": HOSTILE_PIECES[1],
  "API-3": HOSTILE_PIECES[2],
  "UI-1": HOSTILE_PIECES[3],
  "UI-2": SECRET_TEXT,
  "OPS-1": HOSTILE_PIECES[4],
};

/** The reviews of the board's pull request: quinn approves; mallory comments, with every hostile piece. */
export function boardReviews(fake: FakeGitHub, hostileBody?: string): void {
  const head = fake.sha("feature");
  fake.permissions.quinn = "WRITE";
  fake.review("quinn", "APPROVED", head, "2026-11-30T11:00:00Z", "Tests cover the expired cookie. Approved.");
  if (hostileBody !== undefined) fake.review("mallory", "COMMENTED", head, "2026-11-30T11:30:00Z", hostileBody);
}

/** A board of `count` tasks, all `todo` but the first two (`in_progress`): more than a page of tasks. */
export function largeBoard(repo: TempRepo, count: number): void {
  const ids = Array.from({ length: count }, (_, index) => `T-${String(index + 1).padStart(3, "0")}`);
  const tasks: Record<string, LedgerEntry> = {};
  ids.forEach((id, index) => (tasks[id] = index < 2 ? claimed("carol") : entry("todo")));
  repo.write({
    ".github/taskgate.yml": BOARD_CONFIG,
    ...(board(
      ids.map((id) => def(id, { title: `Task ${id}` })),
      tasks,
      1,
    ) as Record<string, string>),
  });
  repo.commit("a large board", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.commit("nothing", "carol");
  repo.git("checkout", "-q", "main");
}

/**
 * A phases repository: on `main` tasks at research, implement and new; `feature` moves `a` to
 * research:awaiting_approval (legal) and `b` from research straight to done (a problem).
 */
export function phasesRepository(repo: TempRepo): void {
  repo.write({
    ".github/taskgate.yml": "preset: phases\n",
    "tasks/a/.state": "research\n",
    "tasks/a/SPEC.md": "# Spec\nThe login form.\n",
    "tasks/b/.state": "research\n",
    "tasks/b/SPEC.md": "# Spec\nThe sign-up form.\n",
    "tasks/c/.state": "implement\n",
    "tasks/c/SPEC.md": "# Spec\nThe logout link.\n",
    "tasks/d/.state": "new\n",
  });
  repo.commit("base", "alice");
  repo.git("checkout", "-q", "-b", "feature");
  repo.write({ "tasks/a/.state": "research:awaiting_approval\n", "tasks/b/.state": "done\n" });
  repo.commit("moves", "carol");
  repo.git("checkout", "-q", "main");
}
