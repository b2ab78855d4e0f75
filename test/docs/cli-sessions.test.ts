/**
 * The example sessions of docs/cli.md (and the adoption example of docs/presets.md) are real: each is
 * replayed in a fresh folder with the built `taskgate` on PATH, and every command must print exactly
 * what the document shows. Each session ends in a pull request the check passes (its approval given as
 * a simulated review).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const DOC = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
const PRESETS = readFileSync(join(ROOT, "docs", "presets.md"), "utf8");

interface Step {
  readonly command: string;
  readonly output: string;
}

/** The commands of a `<!-- session: name -->` console block, each with the output shown under it. */
function session(name: string, doc = DOC): Step[] {
  const start = doc.indexOf(`<!-- session: ${name} -->`);
  if (start < 0) throw new Error(`the document has no session ${name}`);
  const open = doc.indexOf("```console\n", start) + "```console\n".length;
  const block = doc.slice(open, doc.indexOf("\n```", open));
  const steps: { command: string; output: string[] }[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("$ ")) steps.push({ command: line.slice(2), output: [] });
    else steps.at(-1)!.output.push(line);
  }
  return steps.map((step) => ({ command: step.command, output: step.output.join("\n") }));
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs the steps in one shell; returns each command's output and exit code. */
function replay(steps: readonly Step[]): { output: string; code: number }[] {
  const dir = mkdtempSync(join(tmpdir(), "taskgate-session-"));
  dirs.push(dir);
  const bin = join(dir, "bin");
  const repo = join(dir, "repo");
  mkdirSync(bin);
  mkdirSync(repo);
  writeFileSync(
    join(bin, "taskgate"),
    `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "bin", "taskgate.js")}" "$@"\n`,
  );
  chmodSync(join(bin, "taskgate"), 0o755);
  const script = steps.map((step) => `printf '\\036\\n'\n${step.command} 2>&1\nprintf '\\037%s\\n' "$?"`).join("\n");
  const result = spawnSync("sh", ["-c", script], {
    cwd: repo,
    encoding: "utf8",
    env: { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: dir, GIT_CONFIG_NOSYSTEM: "1", LANG: "C.UTF-8" },
  });
  expect(result.stderr).toBe("");
  return result.stdout
    .split("\u001e\n")
    .slice(1)
    .map((part) => {
      const match = /\u001f(\d+)\n$/.exec(part);
      return { output: part.slice(0, match?.index ?? part.length).replace(/\n$/, ""), code: Number(match?.[1]) };
    });
}

describe("the example sessions of docs/cli.md", () => {
  it.each(["phases", "board"])("%s: every command prints what the document shows", (name) => {
    const steps = session(name);
    const runs = replay(steps);
    expect(runs).toHaveLength(steps.length);
    steps.forEach((step, index) => {
      expect({ command: step.command, output: runs[index]!.output }).toEqual({
        command: step.command,
        output: step.output,
      });
    });
    const last = runs.at(-1)!;
    expect(steps.at(-1)!.command).toMatch(/^taskgate check /);
    expect(last.code).toBe(0);
    expect(last.output).toContain("success: 0 violation(s), 0 pending approval(s)");
  });
});

describe("the adoption example of docs/presets.md", () => {
  it("prints what the document shows; the check waits (exit 3), then passes (exit 0) twice", () => {
    const steps = session("adoption", PRESETS);
    // The document filters the checks' output; each is also run whole, right after, for its exit code.
    const whole = (step: Step) => ({ command: `${step.command.replace(/ \| .*$/, "")} > /dev/null`, output: "" });
    const isCheck = (step: Step) => step.command.startsWith("taskgate check ");
    const runs = replay(steps.flatMap((step) => (isCheck(step) ? [step, whole(step)] : [step])));
    expect(runs).toHaveLength(steps.length + steps.filter(isCheck).length);
    let index = 0;
    const codes: number[] = [];
    for (const step of steps) {
      expect({ command: step.command, output: runs[index++]!.output }).toEqual({
        command: step.command,
        output: step.output,
      });
      if (isCheck(step)) codes.push(runs[index++]!.code);
    }
    expect(codes).toEqual([3, 0, 0]);
    expect(steps.at(-1)!.command).toMatch(/^taskgate check /);
    expect(steps.at(-1)!.output).toContain("success: 0 violation(s), 0 pending approval(s)");
  });
});
