/**
 * The README's commands run as printed: each `<!-- try: name -->` block is run by bash from the root
 * of the clone, with `taskgate` on PATH as `npm link` would put it, and must end without an error.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

function block(name: string): string {
  const start = README.indexOf(`<!-- try: ${name} -->`);
  if (start < 0) throw new Error(`README.md has no block ${name}`);
  const open = README.indexOf("```sh\n", start) + "```sh\n".length;
  return README.slice(open, README.indexOf("\n```", open));
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function run(script: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "taskgate-readme-"));
  dirs.push(dir);
  // `npm link` puts a `taskgate` that runs bin/taskgate.js on PATH.
  writeFileSync(
    join(dir, "taskgate"),
    `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "bin", "taskgate.js")}" "$@"\n`,
  );
  chmodSync(join(dir, "taskgate"), 0o755);
  const result = spawnSync("bash", ["--norc", "--noprofile", "-euo", "pipefail", "-c", script], {
    cwd: ROOT,
    encoding: "utf8",
    env: {
      PATH: `${dir}:${process.env.PATH ?? ""}`,
      HOME: dir,
      TMPDIR: dir,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "carol",
      GIT_AUTHOR_EMAIL: "carol@example.com",
      GIT_COMMITTER_NAME: "carol",
      GIT_COMMITTER_EMAIL: "carol@example.com",
    },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("the README's commands", () => {
  it("on the phases example: audit, explain, a new task judged as a pull request, can-edit, render, the hook", () => {
    const { status, output } = run(block("phases"));
    expect(output).toContain("success: 0 violation(s)");
    expect(output).toContain("task login-form");
    expect(output).toContain("moved: login-page (created) → research");
    expect(output).toContain("installed the pre-commit hook");
    expect(status).toBe(0);
  });

  it("on the board example: a claim and a submission that wait for the reviewer role", () => {
    const { status, output } = run(block("board"));
    expect(output).toContain("API-2 is in_progress, owned by carol/run-7");
    expect(output).toContain("action_required: 0 violation(s), 1 pending approval(s)");
    expect(status).toBe(0);
  });
});
