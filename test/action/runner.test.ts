/**
 * The Action's own runner (src/action/runner.ts) against `@actions/core` v3 on hostile text: the same
 * calls through both, with stdout and the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files captured in a
 * temporary directory, must write the same bytes. Outputs are compared once parsed (and byte for byte
 * with the random delimiter normalised). `toolkitRunner` (what `run()` uses under a host's
 * `@actions/core`) must write the same bytes again.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { EOL, tmpdir } from "node:os";
import { join } from "node:path";
import * as core from "@actions/core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runner, toolkitRunner, type Runner } from "../../src/action/runner.js";

const HOSTILE = [
  "plain text",
  "",
  "100% done, %25 already escaped, %0A%0D literal",
  "line one\nline two\r\nline three\rend",
  "trailing newline\n",
  "\n\n",
  "::error::injected\n::set-output name=conclusion::success\n::add-mask::x",
  "a,b:c,,::d=e; key=value,title=x",
  "ünïcødé ✓ — 🚀 日本語 \u2028\u2029\u0085 \u00a0 é (e\u0301)",
  "  padded \t ",
  // The heredoc of the output file, and a delimiter of its style that is not this call's.
  "conclusion<<ghadelimiter_00000000-0000-4000-8000-000000000000\nsuccess\nghadelimiter_00000000-0000-4000-8000-000000000000",
  "EOF\n<<EOF\nname<<EOF\nEOF",
];

const WHERE: { title?: string; file?: string; line?: number }[] = [
  { title: "out-of-scope", file: ".github/workflows/ci.yml", line: 3 },
  { title: "a: b, c %\r\n::d", file: "dir/a,b:c%25.md\nx", line: 12 },
  { title: "ünïcødé ✓", file: "tâches/登录/.state" },
  { file: "only/a/file.md", line: 7 },
  { title: "", line: 0 }, // falsy values are left out, the space after the name stays
  { title: undefined },
];

interface Capture {
  stdout: string;
  output: string;
  summary: string;
  exitCode: number | string | undefined;
  error?: string;
}

let dir: string;
let files: { output: string; summary: string };
const saved = { ...process.env };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "taskgate-runner-"));
  // One summary file for the whole file: @actions/core remembers the path it first wrote to.
  files = { output: join(dir, "output"), summary: join(dir, "summary.md") };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

/** Runs `calls` with fresh files and process.env set as a runner sets it; what was written. */
async function capture(
  calls: () => unknown,
  env: Record<string, string | undefined> = { GITHUB_OUTPUT: files.output, GITHUB_STEP_SUMMARY: files.summary },
): Promise<Capture> {
  writeFileSync(files.output, "");
  writeFileSync(files.summary, "");
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  process.exitCode = undefined;
  let stdout = "";
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  });
  let error: string | undefined;
  try {
    await calls();
  } catch (thrown) {
    error = (thrown as Error).message;
  } finally {
    spy.mockRestore();
  }
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  return {
    stdout,
    output: readFileSync(files.output, "utf8"),
    summary: readFileSync(files.summary, "utf8"),
    exitCode,
    ...(error !== undefined && { error }),
  };
}

/** Both sides wrote the same bytes, the random output delimiters set aside. */
function expectSame(ours: Capture, toolkit: Capture): void {
  const uuid = /ghadelimiter_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
  expect(ours.stdout).toBe(toolkit.stdout);
  expect(ours.summary).toBe(toolkit.summary);
  expect(ours.exitCode).toBe(toolkit.exitCode);
  expect(ours.error).toBe(toolkit.error);
  expect(parseOutputs(ours.output)).toEqual(parseOutputs(toolkit.output));
  expect(ours.output.replace(uuid, "ghadelimiter_*")).toBe(toolkit.output.replace(uuid, "ghadelimiter_*"));
}

/**
 * The output file read the way the runner reads it: `name=value` lines and `name<<delimiter` heredocs
 * whose value runs to the first line that is exactly the delimiter. Pairs in order, repeats kept.
 */
function parseOutputs(text: string): [string, string][] {
  const lines = text.split(EOL);
  const pairs: [string, string][] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line === "") continue;
    const heredoc = line.indexOf("<<");
    const equals = line.indexOf("=");
    if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
      pairs.push([line.slice(0, equals), line.slice(equals + 1)]);
      continue;
    }
    const name = line.slice(0, heredoc);
    const delimiter = line.slice(heredoc + 2);
    const value: string[] = [];
    for (index++; index < lines.length && lines[index] !== delimiter; index++) value.push(lines[index]!);
    if (index >= lines.length) throw new Error(`unterminated heredoc for ${name}`);
    pairs.push([name, value.join(EOL)]);
  }
  return pairs;
}

const ours = (): Runner => runner(process.env);

describe("the Action's runner writes what @actions/core writes", () => {
  it.each(HOSTILE.map((text) => [JSON.stringify(text), text]))("info, warning, error: %s", async (_name, text) => {
    expectSame(
      await capture(() => (ours().info(text), ours().warning(text), ours().error(text))),
      await capture(() => (core.info(text), core.warning(text), core.error(text))),
    );
  });

  it.each(HOSTILE.map((text) => [JSON.stringify(text), text]))("a mask and a failure: %s", async (_name, text) => {
    const mine = await capture(() => (ours().mask(text), ours().fail(text)));
    expectSame(mine, await capture(() => (core.setSecret(text), core.setFailed(text))));
    expect(mine.exitCode).toBe(1);
  });

  it.each(WHERE.map((where) => [JSON.stringify(where), where]))(
    "annotations with properties: %s",
    async (_name, where) => {
      for (const text of HOSTILE) {
        expectSame(
          await capture(() => ours().error(text, where)),
          await capture(() => core.error(text, { title: where.title, file: where.file, startLine: where.line })),
        );
      }
    },
  );

  it("the escapes are @actions/core's, on one example spelled out", async () => {
    const { stdout } = await capture(() =>
      ours().error("50%\r\nnext ::x", { title: "a:b,c", file: "f%,:.md", line: 3 }),
    );
    expect(stdout).toBe(`::error title=a%3Ab%2Cc,file=f%25%2C%3A.md,line=3::50%25%0D%0Anext ::x${EOL}`);
    expect((await capture(() => ours().error("m", { title: "", line: 0 }))).stdout).toBe(`::error ::m${EOL}`);
  });

  it("outputs, one per hostile value, multi-line and delimiter-like ones included", async () => {
    const names = HOSTILE.map((_text, index) => `out_${index}`);
    const mine = await capture(() => HOSTILE.forEach((text, index) => ours().output(names[index]!, text)));
    expectSame(mine, await capture(() => HOSTILE.forEach((text, index) => core.setOutput(names[index]!, text))));
    // And they read back as what was set.
    expect(parseOutputs(mine.output)).toEqual(HOSTILE.map((text, index) => [names[index], text]));
    expect(mine.output).toMatch(/^out_0<<ghadelimiter_[0-9a-f-]{36}\n/);
  });

  it("outputs without GITHUB_OUTPUT go to stdout as set-output commands, as the toolkit's do", async () => {
    const env = { GITHUB_OUTPUT: undefined, GITHUB_STEP_SUMMARY: files.summary };
    for (const text of HOSTILE) {
      expectSame(
        await capture(() => ours().output("conclusion", text), env),
        await capture(() => core.setOutput("conclusion", text), env),
      );
    }
  });

  it("an output file that is missing fails the same way", async () => {
    const env = { GITHUB_OUTPUT: join(dir, "missing", "output"), GITHUB_STEP_SUMMARY: files.summary };
    const mine = await capture(() => ours().output("conclusion", "x"), env);
    expect(mine.error).toBe(`Missing file at path: ${env.GITHUB_OUTPUT}`);
    expectSame(mine, await capture(() => core.setOutput("conclusion", "x"), env));
  });

  it("the step summary: markdown and a line break appended, as summary.addRaw(text, true).write()", async () => {
    const mine = await capture(async () => {
      for (const text of HOSTILE) await ours().summary(text);
    });
    expectSame(
      mine,
      await capture(async () => {
        for (const text of HOSTILE) await core.summary.addRaw(text, true).write();
      }),
    );
    expect(mine.summary).toBe(HOSTILE.map((text) => `${text}${EOL}`).join(""));
  });

  it("without GITHUB_STEP_SUMMARY the runner skips the summary (the toolkit would throw)", async () => {
    const mine = await capture(() => ours().summary("# report"), { GITHUB_STEP_SUMMARY: undefined });
    expect(mine).toEqual({ stdout: "", output: "", summary: "", exitCode: undefined });
  });

  it("inputs: INPUT_ with spaces as underscores, upper-cased, trimmed", async () => {
    const env = {
      INPUT_MODE: "  check \n",
      INPUT_MY_INPUT: "\tü ✓ %0A,:: \r\n",
      INPUT_EMPTY: "",
    };
    Object.assign(process.env, env);
    for (const name of ["mode", "MODE", "my input", "My Input", "empty", "missing"]) {
      expect(ours().input(name)).toBe(core.getInput(name));
    }
    expect(ours().input("my input")).toBe("ü ✓ %0A,::");
  });
});

describe("toolkitRunner: the Action's calls through @actions/core", () => {
  /** Every call the Action makes, with hostile text. */
  async function everything(r: Runner): Promise<void> {
    for (const [index, text] of HOSTILE.entries()) {
      r.info(text);
      r.mask(text);
      r.warning(text);
      r.error(text);
      for (const where of WHERE) r.error(text, where);
      r.output(`out_${index}`, text);
      await r.summary(text);
      r.fail(text);
    }
  }

  it("writes what the Action's own runner writes", async () => {
    expectSame(await capture(() => everything(ours())), await capture(() => everything(toolkitRunner(core))));
  });

  it("reads the same inputs", () => {
    process.env.INPUT_CONFIG = "  .github/tg.yml\n";
    expect(toolkitRunner(core).input("config")).toBe(ours().input("config"));
  });
});
