import { describe, expect, it } from "vitest";
import { createModel, type Config, type Loaded } from "../../src/core/index.js";
import {
  boardTasks,
  expandTeams,
  membersOf,
  phasesTasks,
  repositoryTasks,
  teamMembersOf,
  teamsAmong,
  type TaskView,
} from "../../src/pages/data.js";
import {
  PAGE_SIZE,
  filterTasks,
  pageOf,
  parseQuery,
  repositoryPage,
  type RepositoryPageInput,
} from "../../src/pages/repository.js";
import { board, claimed, def, entry } from "../helpers/board.js";
import { config, snapshot, task } from "../helpers/memory.js";
import { HOSTILE, HOSTILE_ESCAPED, TOKEN, expectBalanced, expectSafe, svgsOf } from "./helpers.js";

const CONFIG = config(
  'preset: board\nroles:\n  qa: [quinn, "@acme/qa"]\n  backend: [carol, dave]\n  frontend: [erin]\n',
);
const FILES = board(
  [
    def("a"),
    def("b", { depends_on: ["a"] }),
    def("c", { title: "Review me", role: "frontend" }),
    def("d", { stage: "S2" }),
    def("e"),
  ],
  {
    b: claimed("dave/x"),
    c: entry("review", { owner: "quinn/y" }),
    d: entry("blocked", { owner: "erin", blocked_by: ["b"] }),
    e: entry("done"),
  },
  3,
);
const TASKS = boardTasks(CONFIG, snapshot(FILES), { "@acme/qa": ["rita"] });

/** The config with the model it builds, as `loadConfig` gives them. */
function loaded(given: Config): Loaded {
  const built = createModel(given);
  if (!built.ok) throw new Error(JSON.stringify(built.issues));
  return { config: given, model: built.model };
}

function input(tasks: readonly TaskView[] = TASKS, extra: Partial<RepositoryPageInput> = {}): RepositoryPageInput {
  return { owner: "acme", repo: "site", branch: "main", sha: "abcdef0123", preset: "board", tasks, ...extra };
}

/** The ids in the task table's rows, in order. */
function rowIds(html: string): string[] {
  const table = /<section aria-labelledby="tasks">[\s\S]*?<\/section>/.exec(html)![0];
  return [...table.matchAll(/<tr><td><code>([^<]*)<\/code>/g)].map((match) => match[1]!);
}

describe("the board's tasks", () => {
  it("reads each task's state, owner, role and stage, what it waits on, and who may review it", () => {
    expect(TASKS.map((t) => [t.id, t.state, t.owner, t.role, t.stage])).toEqual([
      ["a", "todo", null, "backend", "S1"],
      ["b", "in_progress", "dave/x", "backend", "S1"],
      ["c", "review", "quinn/y", "frontend", "S1"],
      ["d", "blocked", "erin", "backend", "S2"],
      ["e", "done", null, "backend", "S1"],
    ]);
    expect(TASKS.find((t) => t.id === "b")!.waitsOn).toEqual(["a"]);
    expect(TASKS.find((t) => t.id === "d")!.waitsOn).toEqual(["b"]);
    // The owner never reviews their own task; the team is expanded to its members.
    expect(TASKS.find((t) => t.id === "c")!.reviewers).toEqual(["rita"]);
    expect(membersOf(CONFIG, "qa")).toEqual(["quinn", "@acme/qa"]);
    expect(repositoryTasks(loaded(CONFIG), snapshot(FILES))).toHaveLength(5);
  });

  it("reads the phases tasks with their states", () => {
    const files = { ".github/taskgate.yml": "preset: phases\n", ...task("t1", "new"), ...task("t2", "implement") };
    const tasks = phasesTasks(loaded(config()), snapshot(files));
    expect(tasks.map((t) => [t.id, t.state])).toEqual([
      ["t1", "new"],
      ["t2", "implement"],
    ]);
  });
});

describe("who may review, by login", () => {
  const PHASES = config(
    'preset: phases\nroles:\n  leads: [lee, "@acme/qa"]\napprovals:\n  approvers: ["role:leads"]\n',
  );

  it("names the people of a phases gate's roles, its teams by name until their members are known", () => {
    const files = {
      ".github/taskgate.yml": "preset: phases\n",
      ...task("t1", "research:awaiting_approval", { "SPEC.md": "s\n", "RESEARCH.md": "r\n" }),
      ...task("t2", "research", { "SPEC.md": "s\n" }),
    };
    const tasks = phasesTasks(loaded(PHASES), snapshot(files));
    expect(tasks.find((t) => t.id === "t1")!.reviewers).toEqual(["lee", "@acme/qa"]);
    expect(teamsAmong(tasks.map((t) => t.reviewers))).toEqual(["@acme/qa"]);
    const expanded = phasesTasks(loaded(PHASES), snapshot(files), { "@ACME/qa": ["rita", "lee"] });
    expect(expanded.find((t) => t.id === "t1")!.reviewers).toEqual(["lee", "rita"]);
  });

  it("expands a team into its members afterwards, never naming the task's owner", () => {
    const named = boardTasks(CONFIG, snapshot(FILES));
    expect(named.find((t) => t.id === "c")!.reviewers).toEqual(["@acme/qa"]);
    const tasks = expandTeams(named, { "@acme/QA": ["quinn", "rita"] });
    expect(tasks.find((t) => t.id === "c")!.reviewers).toEqual(["rita"]);
    expect(tasks.find((t) => t.id === "a")).toBe(named.find((t) => t.id === "a"));
    expect(teamsAmong([["@acme/qa", "@ACME/QA", "quinn", "@nobody", "anyone with write permission"]])).toEqual([
      "@acme/qa",
    ]);
  });

  it("keeps a team GitHub does not show by name, and says its members could not be listed", () => {
    const teams = teamMembersOf(["@acme/qa", "@acme/gone", "@acme/big"], {
      teams: { "@acme/qa": ["rita"], "@acme/gone": [], "@acme/big": ["bo"] },
      unresolved: {
        "@acme/gone": "GitHub shows no team @acme/gone to taskgate",
        "@acme/big": "@acme/big has 300 members and GitHub lists 1; the others are not recognised",
      },
    });
    expect(teams.members).toEqual({ "@acme/qa": ["rita"], "@acme/big": ["bo"] });
    expect(teams.notes).toEqual([
      "The members of @acme/gone could not be listed: GitHub shows no team @acme/gone to taskgate.",
      "@acme/big has 300 members and GitHub lists 1; the others are not recognised.",
    ]);
    const html = repositoryPage(
      input(expandTeams(boardTasks(CONFIG, snapshot(FILES)), teams.members), { teamNotes: teams.notes }),
    );
    expect(html).toContain("The members of @acme/gone could not be listed");
  });
});

describe("a repository that is not on GitHub", () => {
  it("names the repository as text and links nothing to GitHub", () => {
    const html = repositoryPage(input(TASKS, { owner: "local", repo: "site", githubLinks: false }));
    expect(html).not.toContain("github.com");
    expect(html).not.toContain("undefined");
    expect(html).toContain("local/site");
    expect(repositoryPage(input())).toContain('href="https://github.com/acme/site"');
  });
});

describe("repositoryPage", () => {
  it("shows every task, who waits on whom as a list and a graph, and who may review", () => {
    const html = repositoryPage(input());
    expect(rowIds(html)).toEqual(["a", "b", "c", "d", "e"]);
    expect(html).toContain(
      "<td><code>b</code></td><td>Task b</td><td>in_progress</td><td>dave/x</td><td>backend</td><td>S1</td>",
    );
    expect(html).toContain('<th scope="col">owner</th>');
    expect(html).toContain(
      '<li><code>d</code> (erin) waits on <code>b</code> (dave/x) <span class="muted">in_progress</span></li>',
    );
    expect(html).toContain('<li><code>b</code> (dave/x) waits on <code>a</code> <span class="muted">todo</span></li>');
    expect(html).toContain(
      '<code>c</code> (quinn/y) Review me<p><strong>May review:</strong> <span class="mono">rita</span></p>',
    );
    const [graph, ...others] = svgsOf(html);
    expect(others).toEqual([]);
    expect(graph).toMatch(/viewBox="0 0 \d+ \d+"/);
    expectBalanced(graph!);
    const nodes = [...graph!.matchAll(/<g class="task"><title>([^<]*)<\/title>/g)].map((m) => m[1]).sort();
    expect(nodes).toEqual(["a", "b", "d"]);
    expect(graph!.match(/<line /g)).toHaveLength(2);
    const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]);
    expect(new Set(ids).size).toBe(ids.length);
    expectSafe(html);
  });

  it("filters by state, owner and role with a GET form and links that need no script", () => {
    const html = repositoryPage(input());
    expect(html).toContain('<form class="filters" method="get" action="/taskgate/acme/site"');
    expect(html).not.toMatch(/method="post"/i);
    expect(html).toContain('<label>State <select name="state">');
    expect(html).toContain('<label>Role <select name="role">');
    expect(html).toContain('<input type="text" name="owner"');
    expect(html).toContain('<a href="/taskgate/acme/site?state=blocked">blocked: 1</a>');
    expect(rowIds(repositoryPage(input(), "state=blocked"))).toEqual(["d"]);
    expect(rowIds(repositoryPage(input(), new URLSearchParams({ owner: "dave" })))).toEqual(["b"]);
    expect(rowIds(repositoryPage(input(), { owner: "DAVE/x" }))).toEqual(["b"]);
    expect(rowIds(repositoryPage(input(), "owner=(none)"))).toEqual(["a", "e"]);
    expect(rowIds(repositoryPage(input(), "role=frontend"))).toEqual(["c"]);
    expect(rowIds(repositoryPage(input(), "role=backend&state=todo"))).toEqual(["a"]);
    const filtered = repositoryPage(input(), "role=backend");
    expect(filtered).toContain('<option value="backend" selected>backend</option>');
    expect(filtered).toContain('<a href="/taskgate/acme/site?state=todo&amp;role=backend">todo: 1</a>');
    expect(filtered).not.toContain("May review:");
  });

  it("pages the task list, 200 to a page, and keeps the filters in the page links", () => {
    const many: TaskView[] = Array.from({ length: 450 }, (_, i) => ({
      id: `t${i}`,
      state: i % 2 === 0 ? "todo" : "done",
      owner: null,
      role: "backend",
      stage: "S1",
    }));
    expect(PAGE_SIZE).toBe(200);
    expect(rowIds(repositoryPage(input(many))).slice(0, 2)).toEqual(["t0", "t1"]);
    expect(rowIds(repositoryPage(input(many)))).toHaveLength(200);
    const third = repositoryPage(input(many), "page=3");
    expect(rowIds(third)).toEqual(many.slice(400).map((t) => t.id));
    expect(third).toContain('<span aria-current="page">3</span>');
    expect(third).toContain('<a href="/taskgate/acme/site?page=2" aria-label="Page 2">2</a>');
    expect(rowIds(repositoryPage(input(many), "page=99"))).toHaveLength(50);
    expect(rowIds(repositoryPage(input(many), "page=x"))[0]).toBe("t0");
    const todo = repositoryPage(input(many), "state=todo&page=2");
    expect(rowIds(todo)).toEqual(
      many
        .filter((t) => t.state === "todo")
        .slice(200)
        .map((t) => t.id),
    );
    expect(todo).toContain('href="/taskgate/acme/site?state=todo&amp;page=1"');
    expect(pageOf([], 1)).toEqual({ rows: [], page: 1, pages: 1 });
    expect(filterTasks(many, parseQuery("state=done"))).toHaveLength(225);
  });

  it("renders hostile text in every field as text, and redacts a token", () => {
    const hostile = `${HOSTILE} ${TOKEN}`;
    const tasks: TaskView[] = [
      {
        id: hostile,
        title: hostile,
        state: hostile,
        owner: hostile,
        role: hostile,
        stage: hostile,
        waitsOn: [hostile],
        reviewers: [hostile],
      },
      { id: "x", title: hostile, state: "review", owner: hostile, waitsOn: [hostile], reviewers: [] },
    ];
    const html = repositoryPage(
      input(tasks, { owner: hostile, repo: hostile, branch: hostile, sha: hostile, href: `/x"${hostile}` }),
      {
        state: hostile,
        owner: hostile,
        role: hostile,
        page: hostile,
      },
    );
    expectSafe(html);
    expect(html).toContain(HOSTILE_ESCAPED);
    expect(html).toContain("[redacted]");
    expect(html).not.toContain("<img");
    for (const svg of svgsOf(html)) expectBalanced(svg);
    const open = repositoryPage(input(tasks));
    expectSafe(open);
    expect(rowIds(open)).toEqual([`${HOSTILE_ESCAPED} [redacted]`, "x"]);
    expect(open).toContain("nobody: the role has no members");
  });

  it("renders a 10,000-task board: one page of rows, every state counted", () => {
    const count = 10_000;
    const definitions = Array.from({ length: count }, (_, i) =>
      def(`t${i}`, { depends_on: i % 10 === 1 ? [`t${i - 1}`] : [], role: i % 3 === 0 ? "frontend" : "backend" }),
    );
    const ledger = Object.fromEntries(
      definitions
        .filter((_, i) => i % 4 !== 0)
        .map((d, i) => [d.id, i % 5 === 0 ? entry("review", { owner: "dave/x" }) : claimed("carol/y")]),
    );
    const tasks = boardTasks(CONFIG, snapshot(board(definitions, ledger, 1)));
    expect(tasks).toHaveLength(count);
    const html = repositoryPage(input(tasks));
    expect(rowIds(html)).toHaveLength(PAGE_SIZE);
    expect(html).toContain(`Tasks (${count} of ${count})`);
    expect(html).toMatch(/<a href="\/taskgate\/acme\/site\?page=50" aria-label="Page 50">50<\/a>/);
    expect(html).toMatch(/more not listed; filter to narrow/);
    expect(svgsOf(html)).toHaveLength(1);
    expectBalanced(svgsOf(html)[0]!);
  });
});
