/**
 * The table of verbs (src/cli/commands.ts) is the one source of the command line: every verb is in
 * `--help`, every verb routes to its handler with its own options, and a verb of one preset is
 * refused in a repository of the other with the same message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMON_OPTIONS, VERBS, presetRefusal, verbNamed } from "../../src/cli/commands.js";
import { runCli, tempRepo, type TempRepo } from "../helpers/git.js";

const cwd = process.cwd();

describe("the table of verbs", () => {
  it("gives every verb a line of --help, in its preset's section", async () => {
    const help = (await runCli(["--help"], cwd)).stdout;
    const [, phases = "", board = ""] = help.split(/ {2}(?:phases|board) preset:\n/);
    for (const verb of VERBS) {
      expect(help).toContain(`  taskgate ${verb.usage}\n`);
      const section =
        verb.preset === "phases" ? phases.split("\n\n")[0] : verb.preset === "board" ? board.split("\n\n")[0] : "";
      if (verb.preset) expect(section, verb.name).toContain(`taskgate ${verb.name} `);
    }
    expect(VERBS.map((verb) => verb.name)).toEqual([...new Set(VERBS.map((verb) => verb.name))]);
  });

  it("routes every verb: each takes its own options and refuses another verb's", async () => {
    const all = new Set(VERBS.flatMap((verb) => Object.keys(verb.options)));
    for (const verb of VERBS.filter((item) => !item.ownArguments)) {
      const foreign = [...all].find((option) => !(option in verb.options) && !(option in COMMON_OPTIONS))!;
      const value = VERBS.find((other) => foreign in other.options)!.options[foreign] === "boolean" ? [] : ["x"];
      const run = await runCli([verb.name, `--${foreign}`, ...value], cwd);
      expect(run.code, verb.name).toBe(2);
      expect(run.stderr, verb.name).toContain(`--${foreign} does not apply to \`${verb.name}\``);
    }
    const hook = await runCli(["hook"], cwd);
    expect(hook.stderr).toContain("hook needs a command: install, uninstall or run");
    const unknown = await runCli(["frobnicate"], cwd);
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown command "frobnicate"') });
    expect(verbNamed("frobnicate")).toBeUndefined();
  });

  it("loads a handler for every verb", async () => {
    for (const verb of VERBS) expect(typeof (await verb.load()), verb.name).toBe("function");
  });
});

describe("a verb of the other preset", () => {
  let phases: TempRepo;
  let board: TempRepo;
  beforeAll(() => {
    phases = tempRepo();
    phases.write({ ".github/taskgate.yml": "preset: phases\n", "tasks/t1/.state": "new\n" });
    phases.commit("phases");
    board = tempRepo();
    board.write({
      ".github/taskgate.yml": "preset: board\nroles:\n  backend: [carol]\n",
      "planning/tasks.json": '{"tasks": []}\n',
      "state/tasks.json": '{"revision": 0, "tasks": {}}\n',
    });
    board.commit("board");
  });
  afterAll(() => {
    phases.remove();
    board.remove();
  });

  it("is refused with the table's message, and nothing is written", async () => {
    const repos = { phases: () => board, board: () => phases };
    for (const verb of VERBS.filter((item) => item.preset !== undefined)) {
      const repo = repos[verb.preset!]();
      const other = verb.preset === "phases" ? "board" : "phases";
      const run = await runCli([verb.name, "t1", "--repo", repo.dir], cwd, { TASKGATE_LOGIN: "carol" });
      expect(run.code, verb.name).toBe(2);
      expect(run.stderr, verb.name).toBe(
        `taskgate: ${presetRefusal(verb, other)}\n  hint: run \`taskgate --help\` for usage\n`,
      );
      expect(presetRefusal(verb, other)).toBe(
        `\`${verb.name}\` is a command of the ${verb.preset} preset; this repository uses the ${other} preset`,
      );
      expect(presetRefusal(verb, verb.preset!)).toBeUndefined();
      expect(repo.git("status", "--porcelain"), verb.name).toBe("");
    }
  });
});
