/**
 * The fast paths at 10,000 tasks give the verdicts and positions the simple way gives: the same
 * reports from the git adapter (scoped listings, collapsed pathspecs, chunked reading, canonical
 * board readers, targeted line lookups) as from a reference reader that reads everything plainly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { auditRevision, checkPullRequest } from "../../src/core/service.js";
import type { Report } from "../../src/core/kernel/types.js";
import { GitRepository } from "../../src/git/repository.js";
import { ReferenceRepository, importRepository, phasesTasks } from "../helpers/scale.js";

const TASKS = 10_000;

/** The parts of a report a reader's shortcut could change. */
function verdict(report: Report) {
  return {
    conclusion: report.conclusion,
    violations: report.violations.map((item) => `${item.code} ${item.path ?? ""}:${item.line ?? ""} ${item.message}`),
    pending: report.pending.map((item) => JSON.stringify(item)),
    records: report.records.map((item) => JSON.stringify(item)),
    transitions: report.transitions.map((item) => `${item.task} ${item.from ?? "(new)"} -> ${item.to}`),
  };
}

describe("a phases repository of 10,000 tasks", () => {
  let repo: { dir: string; remove(): void };

  beforeAll(() => {
    const base = phasesTasks(TASKS);
    base.set(".github/taskgate.yml", "preset: phases\n");
    const small = new Map<string, string>([
      ["tasks/t00004/.state", "research:awaiting_approval\n"],
      ["tasks/t00005/.state", "bug_find\n"],
      ["tasks/t00005/BUG_REPORT.md", "# Bugs\n\nOne.\n"],
      ["tasks/t10001/.state", "research\n"],
      ["tasks/t10001/.state.approvals", ""],
    ]);
    // Wider than any pathspec list: 1,000 new tasks and 250 moved ones.
    const wide = phasesTasks(1000, 20_001);
    for (let i = 8; i <= 1000 * 4; i += 16)
      wide.set(`tasks/t${String(i).padStart(5, "0")}/.state`, "research:awaiting_approval\n");
    repo = importRepository([
      { branch: "main", author: "alice", files: base },
      { branch: "small", from: ":1", author: "carol", files: small },
      { branch: "wide", from: ":1", author: "carol", files: wide },
    ]);
  }, 120_000);

  afterAll(() => repo.remove());

  it("audits to the same verdict, every planted defect named", async () => {
    const [fast, plain] = await Promise.all([
      auditRevision(await GitRepository.open(repo.dir), "main"),
      auditRevision(await ReferenceRepository.open(repo.dir), "main"),
    ]);
    expect(verdict(fast)).toEqual(verdict(plain));
    // Only the planted defects: every 97th task.
    expect(fast.violations.length).toBeGreaterThan(70);
    for (const item of fast.violations) expect(Number(item.task?.slice(1)) % 97, item.message).toBe(0);
  });

  it("checks a 3-task pull request and a 1,250-task one to the same verdicts", async () => {
    for (const head of ["small", "wide"]) {
      const request = { base: "main", head, pr: { author: "carol" } };
      const fast = await checkPullRequest(await GitRepository.open(repo.dir), request);
      const plain = await checkPullRequest(await ReferenceRepository.open(repo.dir), request);
      expect(verdict(fast), head).toEqual(verdict(plain));
      expect(fast.transitions.length, head).toBe(head === "small" ? 3 : 1250);
    }
  });
});

describe("a board of 10,000 tasks", () => {
  let repo: { dir: string; remove(): void };
  let ledgerText: string;

  beforeAll(() => {
    const definitions = [];
    const tasks: Record<string, unknown> = {};
    for (let n = 1; n <= TASKS; n++) {
      const id = `T${String(n).padStart(5, "0")}`;
      definitions.push({
        id,
        title: `Task ${n}`,
        role: "backend",
        stage: "S1",
        reviewer_role: "qa",
        depends_on: [],
        paths: [`src/${id}/**`],
        outcome: "",
        steps: [],
        checks: [],
        external: false,
      });
      if (n % 3 === 0) {
        const owner = `agent-${n}/run-1`;
        const claim = { at: "2026-01-01T10:00:00Z", by: owner, action: "claim", from: "todo", to: "in_progress" };
        // Every 500th entry is written by hand (no external_wait, blockers as null): the schema reads it.
        tasks[id] =
          n % 500 === 0
            ? { owner, status: "in_progress", blocked_by: null, history: [claim] }
            : { status: "in_progress", owner, external_wait: false, blocked_by: [], history: [claim] };
      }
    }
    // Entries for tasks nobody defined: more than the lookups answered by targeted scans.
    for (let n = 1; n <= 24; n++) {
      tasks[`X${n}`] = { status: "todo", owner: null, external_wait: false, blocked_by: [], history: [] };
    }
    const config = "preset: board\nmaintainers: [carol]\nroles:\n  backend: [carol]\n  qa: [quinn]\n";
    ledgerText = `${JSON.stringify({ revision: TASKS, tasks }, null, 2)}\n`;
    const head = structuredClone(tasks) as Record<string, { status: string; owner: string | null; history: unknown[] }>;
    head.T00003!.status = "review";
    head.T00003!.history.push({
      at: "2026-01-02T10:00:00Z",
      by: "agent-3/run-1",
      action: "submit",
      from: "in_progress",
      to: "review",
    });
    repo = importRepository([
      {
        branch: "main",
        author: "alice",
        files: new Map([
          [".github/taskgate.yml", config],
          ["planning/tasks.json", `${JSON.stringify({ tasks: definitions }, null, 2)}\n`],
          ["state/tasks.json", ledgerText],
        ]),
      },
      {
        branch: "pr",
        from: ":1",
        author: "carol",
        files: new Map([["state/tasks.json", `${JSON.stringify({ revision: TASKS + 1, tasks: head }, null, 2)}\n`]]),
      },
    ]);
  }, 120_000);

  afterAll(() => repo.remove());

  it("audits to the same verdict, each line where the entry is", async () => {
    const [fast, plain] = await Promise.all([
      auditRevision(await GitRepository.open(repo.dir), "main"),
      auditRevision(await ReferenceRepository.open(repo.dir), "main"),
    ]);
    expect(verdict(fast)).toEqual(verdict(plain));
    const unknown = fast.violations.filter((item) => item.code === "dependency-unknown");
    expect(unknown).toHaveLength(24);
    const lines = ledgerText.split("\n");
    for (const item of unknown) expect(lines[item.line! - 1], item.message).toContain(`"${item.task}": {`);
  });

  it("checks a pull request to the same verdict", async () => {
    const request = { base: "main", head: "pr", pr: { author: "carol" } };
    const fast = await checkPullRequest(await GitRepository.open(repo.dir), request);
    const plain = await checkPullRequest(await ReferenceRepository.open(repo.dir), request);
    expect(verdict(fast)).toEqual(verdict(plain));
    expect(fast.transitions.map((item) => item.task)).toEqual(["T00003"]);
  });
});
