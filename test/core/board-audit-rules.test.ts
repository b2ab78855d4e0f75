/**
 * The board's rules at rest are two tables. Each entry of each table is reached: for every rule a
 * small board that this rule alone flags, both through the whole audit and running the rule alone.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AUDIT_RULES,
  LEDGER_RULES,
  auditBoard,
  entryContext,
  type AuditContext,
  type AuditRule,
  type EntryRule,
} from "../../src/core/board/audit.js";
import { readBoard } from "../../src/core/board/reader.js";
import { renderRootOf } from "../../src/core/kernel/config.js";
import { emptyFindings, type Findings } from "../../src/core/kernel/model.js";
import { board, claimed, def, entry, escalated, inReview, resolverDoneBoard, step } from "../helpers/board.js";
import { config, snapshot, type FileSpec } from "../helpers/memory.js";

const cfg = config("preset: board\nroles:\n  qa: [quinn]\n  backend: [carol, dave]\n");

interface Case {
  readonly rule: string;
  readonly name: string;
  readonly files: Record<string, FileSpec>;
  readonly codes: readonly string[];
  readonly records?: number;
}

const CASES: readonly Case[] = [
  {
    rule: "renderedFilesCurrent",
    name: "a matrix rendered from another state, and the card of no task",
    files: board([def("a")], {}, 1, {
      [`${renderRootOf(cfg)}/matrix.md`]: "an old matrix\n",
      [`${renderRootOf(cfg)}/cards/ghost.md`]: "gone\n",
    }),
    codes: ["matrix-stale", "matrix-stale", "matrix-stale", "matrix-stale"],
  },
  {
    rule: "graphSound",
    name: "a dependency on an unknown task",
    files: board([def("a", { depends_on: ["ghost"] })], {}, 1),
    codes: ["dependency-unknown"],
  },
  {
    rule: "rolesKnown",
    name: "a role the config does not name",
    files: board([def("a", { role: "designer" })], {}, 1),
    codes: ["state-invalid"],
  },
  {
    rule: "ownersWithinLimits",
    name: "a retired owner with two unfinished tasks",
    files: board(
      [def("a"), def("b"), def("c"), def("r")],
      {
        a: claimed("carol"),
        b: claimed("carol"),
        c: escalated("carol", ["r"]),
      },
      1,
    ),
    codes: ["owner-limit", "agent-retired"],
  },
  {
    rule: "historyChains",
    name: "a history that does not start at todo",
    files: board(
      [def("a")],
      { a: entry("in_progress", { owner: "carol", history: [step("submit", "in_progress", "review", "carol")] }) },
      1,
    ),
    codes: ["illegal-transition", "illegal-transition"],
  },
  {
    rule: "ownerWellFormed",
    name: "an owner that is no login",
    files: board([def("a")], { a: claimed("not an owner!") }, 1),
    codes: ["owner-mismatch"],
  },
  {
    rule: "unfinishedOwned",
    name: "a task in progress without an owner",
    files: board(
      [def("a")],
      { a: entry("in_progress", { history: [step("claim", "todo", "in_progress", "carol")] }) },
      1,
    ),
    codes: ["owner-mismatch"],
  },
  {
    rule: "dependenciesDone",
    name: "a task claimed before its dependency is done",
    files: board([def("a"), def("b", { depends_on: ["a"] })], { b: claimed("carol") }, 1),
    codes: ["dependency-unmet"],
  },
  {
    rule: "submissionFilesExist",
    name: "a submission whose evidence and handoff do not exist",
    files: board([def("a")], { a: inReview("carol", "state/evidence/a.md") }, 1),
    codes: ["evidence-missing", "evidence-missing"],
  },
  {
    rule: "blockersResolved",
    name: "a blocked task naming no resolver",
    files: board(
      [def("a")],
      {
        a: entry("blocked", {
          history: [
            step("claim", "todo", "in_progress", "dave/x"),
            step("escalate", "in_progress", "blocked", "dave/x"),
          ],
        }),
      },
      1,
    ),
    codes: ["blocked-without-resolver"],
  },
  {
    rule: "blockersResolved",
    name: "a blocked task whose resolvers are all done (a record, no violation)",
    files: resolverDoneBoard(),
    codes: [],
    records: 1,
  },
  {
    rule: "folderFilesClean",
    name: "a symlink among the evidence",
    files: board([def("a")], {}, 1, { "state/evidence/x.md": { kind: "symlink", target: "/etc/passwd" } }),
    codes: ["path-escape"],
  },
];

function contextOf(files: Record<string, FileSpec>): AuditContext {
  const snap = snapshot(files);
  const read = readBoard(snap, cfg.board);
  expect(read.problems).toEqual([]);
  return { config: cfg, options: cfg.board, snapshot: snap, board: read, findings: emptyFindings() };
}

/** The findings of one table entry alone: a rule over the board, or a rule over each ledger entry. */
function findingsOf(rule: AuditRule | EntryRule, files: Record<string, FileSpec>): Findings {
  const ctx = contextOf(files);
  if ((AUDIT_RULES as readonly unknown[]).includes(rule)) (rule as AuditRule)(ctx);
  else {
    for (const [id, item] of Object.entries(ctx.board.ledger.tasks)) (rule as EntryRule)(entryContext(ctx, id, item));
  }
  return ctx.findings;
}

const codes = (findings: Findings) => findings.violations.map((item) => item.code);
/** `ledgerEntriesSound` runs the ledger rules: it is covered through them. */
const RULES = [...AUDIT_RULES.filter((rule) => rule.name !== "ledgerEntriesSound"), ...LEDGER_RULES];

describe("board audit: the tables of rules at rest", () => {
  it("has a case for every entry of both tables", () => {
    expect(AUDIT_RULES.map((rule) => rule.name)).toContain("ledgerEntriesSound");
    expect(new Set(CASES.map((item) => item.rule))).toEqual(new Set(RULES.map((rule) => rule.name)));
  });

  for (const item of CASES) {
    it(`${item.rule}: ${item.name}`, () => {
      const whole = auditBoard(cfg, snapshot(item.files));
      expect(codes(whole)).toEqual(item.codes);
      expect(whole.records).toHaveLength(item.records ?? 0);
      for (const rule of RULES) {
        const alone = findingsOf(rule, item.files);
        if (rule.name === item.rule) expect(alone).toEqual(whole);
        else expect(alone, `${rule.name} flags nothing`).toEqual(emptyFindings());
      }
    });
  }

  it("runs the ledger rules in order on each entry, entry by entry", () => {
    const files = board(
      [def("a"), def("b", { depends_on: ["a"] })],
      {
        a: claimed("not an owner!"),
        b: entry("in_progress", { history: [step("claim", "todo", "in_progress", "x")] }),
      },
      1,
    );
    expect(auditBoard(cfg, snapshot(files)).violations.map((item) => [item.task, item.code])).toEqual([
      ["a", "owner-mismatch"],
      ["b", "owner-mismatch"],
      ["b", "dependency-unmet"],
    ]);
  });
});

describe("board audit: one view moved along the ledger", () => {
  // Entries of every kind the ledger rules tell apart: a view that kept anything of the entry
  // before (its definition, whether it is an external wait) would judge the next one wrongly.
  const KINDS: ((id: string, ids: string[]) => LedgerEntryOf)[] = [
    () => claimed("carol"),
    () => claimed("not an owner!"),
    () => entry("in_progress", { history: [step("claim", "todo", "in_progress", "x")] }),
    () => entry("blocked"),
    () => entry("blocked", { blocked_by: [] }),
    (_, ids) => escalated("dave", ids.slice(0, 1)),
    () => inReview("carol", "state/evidence/none.md"),
    () => entry("done", { owner: "carol", history: [step("submit", "in_progress", "review", "carol")] }),
    () => entry("todo"),
  ];
  type LedgerEntryOf = ReturnType<typeof claimed>;

  it("finds what a fresh context per entry finds, for boards of mixed entries", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            kind: fc.nat(KINDS.length - 1),
            defined: fc.boolean(),
            external: fc.boolean(),
            depends: fc.boolean(),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        (tasks) => {
          const ids = tasks.map((_, index) => `t${index}`);
          const defs = tasks.flatMap((task, index) =>
            task.defined
              ? [
                  def(ids[index]!, {
                    external: task.external,
                    depends_on: task.depends && index > 0 ? [ids[index - 1]!] : [],
                  }),
                ]
              : [],
          );
          const ledger = Object.fromEntries(
            tasks.map((task, index) => [ids[index]!, KINDS[task.kind]!(ids[index]!, ids)]),
          );
          const files = board(defs.length > 0 ? defs : [def("only")], ledger, 1);
          const moved = contextOf(files);
          AUDIT_RULES.find((rule) => rule.name === "ledgerEntriesSound")!(moved);
          const fresh = contextOf(files);
          for (const [id, item] of Object.entries(fresh.board.ledger.tasks)) {
            for (const rule of LEDGER_RULES) rule(entryContext(fresh, id, item));
          }
          expect(moved.findings).toEqual(fresh.findings);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("board audit: the dependency graph at rest", () => {
  const messages = (files: Record<string, FileSpec>) =>
    auditBoard(cfg, snapshot(files))
      .violations.filter((item) => item.code === "dependency-cycle")
      .map((item) => item.message);

  it("reports a task that depends on itself, and no cycle for tasks that do not", () => {
    expect(messages(board([def("a", { depends_on: ["a"] }), def("b", { depends_on: ["a"] })], {}, 1))).toEqual([
      "depends_on forms a cycle: a → a",
    ]);
    expect(
      messages(board([def("a"), def("b", { depends_on: ["a"] }), def("c", { depends_on: ["b", "a"] })], {}, 1)),
    ).toEqual([]);
  });

  it("reports each cycle once, from its smallest id, past unknown dependencies, in the same order each time", () => {
    const defs = [
      def("e", { depends_on: ["f", "ghost"] }),
      def("f", { depends_on: ["e"] }),
      def("b", { depends_on: ["c"] }),
      def("c", { depends_on: ["d", "b"] }),
      def("d", { depends_on: ["b"] }),
      def("x", { depends_on: ["x", "b"] }),
    ];
    const found = messages(board(defs, {}, 1));
    expect([...found].sort()).toEqual([
      "depends_on forms a cycle: b → c → b",
      "depends_on forms a cycle: e → f → e",
      "depends_on forms a cycle: x → x",
    ]);
    expect(messages(board([...defs].reverse(), {}, 1))).toEqual(found);
  });
});
