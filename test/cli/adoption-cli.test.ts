/**
 * Adopting taskgate with work in flight, end to end on a real repository: 30 task folders in mixed
 * phases, `taskgate upgrade`, one pull request, one review, the bot's record, green.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/core/kernel/config.js";
import { writeRecords } from "../../src/core/evaluate.js";
import type { BotRecord } from "../../src/core/kernel/types.js";
import { GitRepository } from "../../src/git/repository.js";
import { runCli, tempRepo, type TempRepo } from "../helpers/git.js";

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const done of cleanup.splice(0)) done();
});

const AT = "2026-11-30T10:00:00Z";
const CONFIG = "preset: phases\n";

/** Six kinds of work in flight, five folders each: what each holds, and where upgrade places it. */
const KINDS: { files: Record<string, string>; state: string; adopted: boolean }[] = [
  { files: { "NOTES.md": "ideas\n" }, state: "new", adopted: false },
  { files: { "SPEC.md": "# Spec\n" }, state: "research", adopted: false },
  { files: { "SPEC.md": "# Spec\n", "DESIGN.md": "# Design\n" }, state: "design", adopted: true },
  {
    files: { "SPEC.md": "# Spec\n", "DESIGN.md": "# Design\n", "TEST_PLAN.md": "# Plan\n" },
    state: "test_design",
    adopted: true,
  },
  { files: { "SPEC.md": "# Spec\n", "BUG_REPORT.md": "bugs\n" }, state: "bug_find", adopted: true },
  {
    files: {
      "SPEC.md": "# Spec\n",
      "BUG_REPORT.md": "bugs\n",
      "ADVERSARIAL_BUG_REPORT.md": "more bugs\n",
      "DOC_REVIEW.md": "docs read\n",
      "VERDICT.md": "PASS\n",
    },
    state: "referee",
    adopted: true,
  },
];

const id = (index: number) => `t${String(index + 1).padStart(2, "0")}`;
const kindOf = (index: number) => KINDS[Math.floor(index / 5)]!;

function folders(from: number, to: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let index = from; index < to; index++) {
    for (const [name, text] of Object.entries(kindOf(index).files)) out[`tasks/${id(index)}/${name}`] = text;
  }
  return out;
}

function setup(): { repo: TempRepo; prFile: (body: unknown) => string } {
  const repo = tempRepo();
  const dir = mkdtempSync(join(tmpdir(), "taskgate-pr-"));
  cleanup.push(
    () => repo.remove(),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  let count = 0;
  const prFile = (body: unknown) => {
    const path = join(dir, `pr-${++count}.json`);
    writeFileSync(path, JSON.stringify(body));
    return path;
  };
  return { repo, prFile };
}

describe("adopting 30 tasks in flight with one pull request", () => {
  it("upgrade, one pull request pending, one review, the bot's adopt records, green", async () => {
    const { repo, prFile } = setup();
    // Half the work in flight is on the default branch already, half only in the author's checkout.
    repo.write({ ".github/taskgate.yml": CONFIG, "src/app.ts": "export const app = 1;\n", ...folders(0, 30) });
    for (let index = 0; index < 30; index += 2) repo.write({ [`tasks/${id(index)}`]: null });
    repo.commit("work in flight", "alice");
    repo.git("checkout", "-q", "-b", "adopt");
    repo.write(folders(0, 30));

    const upgrade = await runCli(["upgrade", "--as", "carol", "--json"], repo.dir);
    expect(upgrade.code).toBe(0);
    const placed = upgrade.json<{ tasks: { task: string; state: string; adopted: boolean }[]; pending: unknown[] }>();
    expect(placed.tasks).toEqual(
      Array.from({ length: 30 }, (_, index) =>
        expect.objectContaining({ task: id(index), state: kindOf(index).state, adopted: kindOf(index).adopted }),
      ),
    );
    expect(placed.pending).toHaveLength(1);
    for (let index = 0; index < 30; index++) {
      expect(readFileSync(join(repo.dir, `tasks/${id(index)}/.state`), "utf8")).toBe(`${kindOf(index).state}\n`);
    }
    const head = repo.commit("taskgate upgrade: track the work in flight", "carol");

    const authorOnly = { author: "carol", commits: [{ sha: head, author: { login: "carol" } }] };
    const pending = await runCli(
      ["check", "--base", "main", "--head", "adopt", "--pr", prFile(authorOnly), "--json"],
      repo.dir,
    );
    expect(pending.code).toBe(3);
    const waiting = pending.json<{
      conclusion: string;
      violations: unknown[];
      pending: { code: string; message: string; approvers: string[] }[];
    }>();
    expect(waiting).toMatchObject({ conclusion: "action_required", violations: [] });
    expect(waiting.pending).toEqual([
      expect.objectContaining({ code: "approval-required", approvers: ["anyone with write permission"] }),
    ]);
    expect(waiting.pending[0]!.message).toContain(
      "adoption of 20 task(s) already past a gate waits for 1 approving review(s) of the pull request, 0 so far",
    );

    const review = { user: { login: "bob" }, state: "APPROVED", commit_id: head, submitted_at: AT };
    const reviewed = { ...authorOnly, reviews: [review], permissions: { bob: "write" } };
    const approved = await runCli(
      ["check", "--base", "main", "--head", "adopt", "--pr", prFile(reviewed), "--json"],
      repo.dir,
    );
    expect(approved.code).toBe(0);
    const { records } = approved.json<{ records: BotRecord[] }>();
    const adopted = Array.from({ length: 30 }, (_, index) => index).filter((index) => kindOf(index).adopted);
    expect(records).toEqual(
      adopted.map((index) => ({
        task: id(index),
        from: kindOf(index).state,
        to: kindOf(index).state,
        by: "bob",
        kind: "adopt",
      })),
    );

    // The bot commits what the core's one writer makes of the records.
    const parsed = parseConfig(CONFIG);
    if (!parsed.ok) throw new Error("config");
    const git = await GitRepository.open(repo.dir);
    const snapshot = await git.readSnapshot("HEAD", { paths: [], prefixes: ["tasks/"] });
    const files = writeRecords(
      parsed.config,
      snapshot,
      records.map((record) => ({ ...record, at: AT })),
    );
    expect(files.size).toBe(20);
    expect(files.get("tasks/t11/.state.approvals")).toBe(`adopted:approved|${AT}|bob\n`);
    repo.write(Object.fromEntries(files));
    const recording = repo.commit("taskgate: record 20 decision(s)", "taskgate[bot]");

    const withBot = {
      ...reviewed,
      commits: [...authorOnly.commits, { sha: recording, author: { login: "taskgate[bot]" } }],
    };
    const green = await runCli(
      ["check", "--base", "main", "--head", "adopt", "--pr", prFile(withBot), "--json"],
      repo.dir,
    );
    expect(green.json()).toMatchObject({ conclusion: "success", violations: [], pending: [], records: [] });
    expect(green.code).toBe(0);
    // Merged, the adopted tasks are clean at rest.
    const audit = await runCli(["audit", "--ref", "adopt", "--json"], repo.dir);
    expect(audit.json<{ violations: unknown[] }>().violations).toEqual([]);
    expect(audit.code).toBe(0);

    // The same commit not attributed to the bot: every adoption line is forged.
    const forged = await runCli(
      ["check", "--base", "main", "--head", "adopt", "--pr", prFile(reviewed), "--json"],
      repo.dir,
    );
    expect(forged.code).toBe(1);
    const codes = forged.json<{ violations: { code: string }[] }>().violations.map((item) => item.code);
    expect(codes).toHaveLength(20);
    expect(new Set(codes)).toEqual(new Set(["approval-forged"]));
  });
});
