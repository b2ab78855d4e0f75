/**
 * Crash-safe changes to a work tree, on real files in temporary folders: atomic writes, all-or-nothing
 * through the journal (with a child process killed part-way), the lock and `unlock`, and the refusal of
 * paths that leave the checkout.
 */
import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { coreBarrel } from "../../scripts/core-barrel.mjs";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { RepositoryError } from "../../src/core/kernel/port.js";
import {
  JOURNAL_FILE,
  JournalError,
  LOCK_FILE,
  LockError,
  UNLOCK_LOG,
  recover,
  transaction,
  unlock,
  type FileChange,
} from "../../src/git/transaction.js";

const SOURCE = join(import.meta.dirname, "../../src/git/transaction.ts");
const CRASH = join(import.meta.dirname, "../fixtures/crash-transaction.mjs");

let root: string;
let outside: string;
/** The module compiled from its source, for child processes (plain Node.js runs no TypeScript). */
let compiled: { dir: string; module: string };

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "taskgate-tx-build-"));
  const module = join(dir, "transaction.mjs");
  // The adapter imports the core's barrel: the plugin narrows it to the modules the transaction uses.
  await build({
    entryPoints: [SOURCE],
    outfile: module,
    bundle: true,
    platform: "node",
    format: "esm",
    plugins: [coreBarrel(join(import.meta.dirname, "../.."))],
  });
  compiled = { dir, module };
});
afterAll(() => rmSync(compiled.dir, { recursive: true, force: true }));

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "taskgate-tx-"));
  outside = mkdtempSync(join(tmpdir(), "taskgate-tx-outside-"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function write(files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

function read(path: string): string {
  return readFileSync(join(root, path), "utf8");
}

/** Every file and folder below a folder: files with their text, folders as "/", symlinks as "-> target". */
function tree(dir = root): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (folder: string, prefix: string) => {
    for (const item of readdirSync(folder, { withFileTypes: true })) {
      const full = join(folder, item.name);
      const path = `${prefix}${item.name}`;
      if (item.isSymbolicLink()) out[path] = `-> ${readlinkSync(full)}`;
      else if (item.isDirectory()) {
        out[`${path}/`] = "/";
        walk(full, `${path}/`);
      } else out[path] = readFileSync(full, "utf8");
    }
  };
  walk(dir, "");
  return out;
}

function lockOf(pid: number, host = hostname()): string {
  return `${JSON.stringify({ pid, host, at: "2024-05-01T10:00:00.000Z", command: "taskgate claim" })}\n`;
}

/** The pid of a Node.js process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

const plan = (changes: readonly FileChange[]) => async () => changes;

describe("transaction", () => {
  it("replaces a single file and leaves no journal, lock or temporary file behind", async () => {
    write({ "a.txt": "old\n" });
    const result = await transaction(root, "test", plan([{ path: "a.txt", content: "new\n" }]));
    expect(result).toEqual({ recovery: { kind: "none" }, applied: [{ path: "a.txt", content: "new\n" }] });
    expect(tree()).toEqual({ "a.txt": "new\n" });
  });

  it("applies edits, new files in new nested folders and deletions together, removing emptied folders", async () => {
    write({ "a.txt": "a\n", "c.txt": "c\n", "gone/d.txt": "d\n", "keep/e.txt": "e\n", "keep/f.txt": "f\n" });
    const changes = [
      { path: "a.txt", content: "A\n" },
      { path: "tasks/new/deep/b.md", content: "# b\n" },
      { path: "c.txt", content: null },
      { path: "gone/d.txt", content: null },
      { path: "keep/e.txt", content: null },
    ];
    const result = await transaction(root, "test", plan(changes));
    expect(result.applied).toEqual(changes);
    expect(tree()).toEqual({
      "a.txt": "A\n",
      "keep/": "/",
      "keep/f.txt": "f\n",
      "tasks/": "/",
      "tasks/new/": "/",
      "tasks/new/deep/": "/",
      "tasks/new/deep/b.md": "# b\n",
    });
  });

  it("skips changes that change nothing, and touches no file when none remain", async () => {
    write({ "a.txt": "same\n" });
    const old = new Date("2020-01-01T00:00:00Z");
    utimesSync(join(root, "a.txt"), old, old);
    const unchanged = [
      { path: "a.txt", content: "same\n" },
      { path: "missing.txt", content: null },
    ];
    expect(await transaction(root, "test", plan(unchanged))).toEqual({ recovery: { kind: "none" }, applied: [] });
    expect((await transaction(root, "test", async () => undefined)).applied).toEqual([]);
    expect(statSync(join(root, "a.txt")).mtime).toEqual(old);
    expect(tree()).toEqual({ "a.txt": "same\n" });
  });

  it.skipIf(process.platform === "win32")("keeps the permissions of a file it replaces", async () => {
    write({ "run.sh": "echo old\n" });
    chmodSync(join(root, "run.sh"), 0o755);
    await transaction(root, "test", plan([{ path: "run.sh", content: "echo new\n" }]));
    expect(statSync(join(root, "run.sh")).mode & 0o777).toBe(0o755);
  });

  it("holds the lock (pid, host, time, command) while planning and releases it after", async () => {
    let seen: unknown;
    await transaction(
      root,
      "taskgate create",
      async () => {
        seen = JSON.parse(read(LOCK_FILE));
        return [{ path: "a.txt", content: "a\n" }];
      },
      { now: () => new Date("2024-05-01T10:00:00Z") },
    );
    expect(seen).toEqual({
      pid: process.pid,
      host: hostname(),
      at: "2024-05-01T10:00:00.000Z",
      command: "taskgate create",
    });
    expect(existsSync(join(root, LOCK_FILE))).toBe(false);
  });

  it("writes nothing when the plan throws, releases the lock and passes the error on", async () => {
    write({ "a.txt": "old\n" });
    const failing = async (): Promise<FileChange[]> => {
      throw new Error("the task does not exist");
    };
    await expect(transaction(root, "test", failing)).rejects.toThrow("the task does not exist");
    expect(tree()).toEqual({ "a.txt": "old\n" });
  });

  it("refuses to run while another process holds the lock, and leaves its lock alone", async () => {
    write({ "a.txt": "old\n", [LOCK_FILE]: lockOf(process.pid) });
    const planned = vi.fn(plan([{ path: "a.txt", content: "new\n" }]));
    const error = await transaction(root, "test", planned).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockError);
    expect(error).toBeInstanceOf(RepositoryError);
    const { message, hint, owner } = error as LockError;
    expect(message).toContain(`pid ${process.pid}`);
    expect(message).toContain(hostname());
    expect(message).toContain("taskgate claim");
    expect(message).toContain("2024-05-01T10:00:00.000Z");
    expect(hint).toContain("taskgate unlock --reason");
    expect(owner).toMatchObject({ pid: process.pid, host: hostname(), command: "taskgate claim" });
    expect(planned).not.toHaveBeenCalled();
    expect(tree()).toEqual({ "a.txt": "old\n", [LOCK_FILE]: lockOf(process.pid) });
  });

  it("does not remove a lock that is no longer the one it wrote", async () => {
    await transaction(root, "test", async () => {
      writeFileSync(join(root, LOCK_FILE), lockOf(12345));
      return [];
    });
    expect(read(LOCK_FILE)).toBe(lockOf(12345));
  });

  it("refuses a file changed twice in one transaction", async () => {
    const twice = [
      { path: "a.txt", content: "1\n" },
      { path: "a.txt", content: "2\n" },
    ];
    await expect(transaction(root, "test", plan(twice))).rejects.toThrow(/twice/);
    expect(tree()).toEqual({});
  });
});

describe("paths that leave the checkout", () => {
  const refused: [string, string][] = [
    ["a parent segment", "../x"],
    ["a parent segment further in", "tasks/../../x"],
    ["an absolute path", "/etc/x"],
    ["an empty segment", "a//b"],
    ["a trailing slash", "a/"],
    ["a . segment", "./a"],
    ["the git folder", ".git/config"],
    ["the git folder in other case", ".GIT/config"],
    ["a backslash", "a\\b"],
    ["a NUL character", "a\0b"],
    ["an empty path", ""],
    ["the lock file", LOCK_FILE],
    ["the journal", JOURNAL_FILE],
  ];

  it.each(refused)("refuses %s (%j) before writing anything", async (_, path) => {
    mkdirSync(join(root, ".git"));
    write({ "a.txt": "old\n" });
    const changes = [
      { path: "a.txt", content: "new\n" },
      { path, content: "bad\n" },
    ];
    await expect(transaction(root, "test", plan(changes))).rejects.toThrow(/^refusing to write/);
    expect(tree()).toEqual({ ".git/": "/", "a.txt": "old\n" });
  });

  it("refuses a write through a symlinked folder", async () => {
    write({ "a.txt": "old\n" });
    symlinkSync(outside, join(root, "linked"));
    const changes = [
      { path: "a.txt", content: "new\n" },
      { path: "linked/deep/x.txt", content: "escaped\n" },
    ];
    await expect(transaction(root, "test", plan(changes))).rejects.toThrow(/linked is a symlink/);
    expect(tree()).toEqual({ "a.txt": "old\n", linked: `-> ${outside}` });
    expect(tree(outside)).toEqual({});
  });

  it.each([
    ["replace", "changed\n"],
    ["delete", null],
  ])("refuses to %s a file that is a symlink", async (_, content) => {
    writeFileSync(join(outside, "target.txt"), "outside\n");
    write({ "a.txt": "old\n" });
    symlinkSync(join(outside, "target.txt"), join(root, "link.txt"));
    const changes = [
      { path: "a.txt", content: "new\n" },
      { path: "link.txt", content },
    ];
    await expect(transaction(root, "test", plan(changes))).rejects.toThrow(/it is a symlink/);
    expect(tree()).toEqual({ "a.txt": "old\n", "link.txt": `-> ${join(outside, "target.txt")}` });
    expect(tree(outside)).toEqual({ "target.txt": "outside\n" });
  });
});

describe("a failure while applying", () => {
  it("puts back what was already changed, byte for byte, and passes the error on", async () => {
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41]);
    write({ "a.txt": "old\n", "image.bin": binary, blocker: "a file, not a folder\n" });
    const changes = [
      { path: "a.txt", content: "new\n" },
      { path: "image.bin", content: null },
      { path: "new/folder/c.txt", content: "c\n" },
      { path: "blocker/x.txt", content: "x\n" },
    ];
    await expect(transaction(root, "test", plan(changes))).rejects.toMatchObject({
      code: expect.stringMatching(/^(EEXIST|ENOTDIR)$/),
    });
    expect(readFileSync(join(root, "image.bin")).equals(binary)).toBe(true);
    expect(tree()).toEqual({
      "a.txt": "old\n",
      "image.bin": binary.toString("utf8"),
      blocker: "a file, not a folder\n",
    });
  });
});

describe("recovery", () => {
  function journal(files: unknown[]): string {
    return `${JSON.stringify({ version: 1, command: "taskgate move", at: "2024-05-01T10:00:00.000Z", files })}\n`;
  }

  it("completes a leftover journal, even where it was already applied, before planning", async () => {
    write({
      "a.txt": "A\n",
      "b.txt": "b\n",
      [JOURNAL_FILE]: journal([
        { path: "a.txt", before: "a\n", after: "A\n" },
        { path: "b.txt", before: "b\n", after: null },
        { path: "c/d.txt", before: null, after: "d\n" },
      ]),
    });
    let planned: Record<string, string> = {};
    const result = await transaction(root, "test", async () => {
      planned = tree();
      return [];
    });
    expect(result.recovery).toEqual({ kind: "completed", files: ["a.txt", "b.txt", "c/d.txt"] });
    expect(planned).toEqual({ "a.txt": "A\n", "c/": "/", "c/d.txt": "d\n", [LOCK_FILE]: expect.any(String) });
    expect(tree()).toEqual({ "a.txt": "A\n", "c/": "/", "c/d.txt": "d\n" });
  });

  it("discards a half-written journal: nothing of it was applied", async () => {
    write({ "a.txt": "a\n", [`${JOURNAL_FILE}.taskgate.tmp`]: '{"version":1,"files":[{"path":"a.txt","bef' });
    expect(await recover(root, "test")).toEqual({ kind: "discarded" });
    expect(tree()).toEqual({ "a.txt": "a\n" });
  });

  it("reports none when there is nothing to recover", async () => {
    write({ "a.txt": "a\n" });
    expect(await recover(root, "test")).toEqual({ kind: "none" });
    expect(tree()).toEqual({ "a.txt": "a\n" });
  });

  it.each([
    ["cut short", '{"version":1,"files":[{"path":"a.txt","before":"a\\n","aft'],
    ["of another shape", '{"version":1,"files":[{"path":"a.txt","after":"A\\n"}]}\n'],
    ["of another version", '{"version":2,"files":[]}\n'],
  ])("keeps a journal it cannot read (%s), changes nothing and says which file", async (_, text) => {
    write({ "a.txt": "a\n", [JOURNAL_FILE]: text });
    const planned = vi.fn(plan([{ path: "a.txt", content: "new\n" }]));
    const error = await transaction(root, "test", planned).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JournalError);
    expect((error as JournalError).message).toContain(join(root, JOURNAL_FILE));
    expect((error as JournalError).hint).toContain(join(root, JOURNAL_FILE));
    expect(planned).not.toHaveBeenCalled();
    await expect(recover(root, "test")).rejects.toBeInstanceOf(JournalError);
    expect(tree()).toEqual({ "a.txt": "a\n", [JOURNAL_FILE]: text });
  });

  it("keeps a journal whose paths leave the checkout, writing none of them", async () => {
    const text = journal([
      { path: "a.txt", before: "a\n", after: "A\n" },
      { path: "../escaped.txt", before: null, after: "x\n" },
    ]);
    write({ "a.txt": "a\n", [JOURNAL_FILE]: text });
    await expect(recover(root, "test")).rejects.toThrow(JournalError);
    expect(tree()).toEqual({ "a.txt": "a\n", [JOURNAL_FILE]: text });
  });
});

describe("a crash part-way (a child process killed with SIGKILL)", () => {
  const before = { "a.txt": "a before\n", "c.txt": "c before\n" };
  const changes = [
    { path: "a.txt", content: "a after\n" },
    { path: "new/nested/b.txt", content: "b after\n" },
    { path: "c.txt", content: null },
  ];
  const after = { "a.txt": "a after\n", "new/": "/", "new/nested/": "/", "new/nested/b.txt": "b after\n" };

  async function crash(killPoint: string): Promise<number> {
    const child = spawn(process.execPath, [CRASH, compiled.module, root, killPoint, JSON.stringify(changes)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const signal = await new Promise((resolve) => child.on("close", (_, killed) => resolve(killed)));
    expect({ signal, output }).toEqual({ signal: "SIGKILL", output: "" });
    return child.pid!;
  }

  it("after the second file: the journal and the dead lock stay; unlock, then recovery completes all three", async () => {
    write(before);
    const pid = await crash("2");
    expect(read("a.txt")).toBe("a after\n");
    expect(read("new/nested/b.txt")).toBe("b after\n");
    expect(read("c.txt")).toBe("c before\n");
    expect(existsSync(join(root, JOURNAL_FILE))).toBe(true);
    expect(JSON.parse(read(LOCK_FILE))).toMatchObject({ pid, host: hostname(), command: "crash test" });

    await expect(recover(root, "test")).rejects.toBeInstanceOf(LockError);
    const unlocked = await unlock(root, "crashed in a test");
    expect(unlocked).toMatchObject({ removed: true, owner: { pid } });
    expect(read(UNLOCK_LOG)).toContain('"crashed in a test"');
    expect(read(UNLOCK_LOG)).toContain(`pid ${pid}`);

    expect(await recover(root, "test")).toEqual({ kind: "completed", files: ["a.txt", "new/nested/b.txt", "c.txt"] });
    expect(tree()).toEqual({ ...after, [UNLOCK_LOG]: expect.any(String) });
  });

  it("right after the journal is in place: recovery applies every file", async () => {
    write(before);
    await crash("after-journal");
    expect(tree()).toEqual({ ...before, [JOURNAL_FILE]: expect.any(String), [LOCK_FILE]: expect.any(String) });
    await unlock(root, "crashed in a test");
    expect((await recover(root, "test")).kind).toBe("completed");
    expect(tree()).toEqual({ ...after, [UNLOCK_LOG]: expect.any(String) });
  });

  it("while writing the journal: nothing was applied and recovery discards the half-written journal", async () => {
    write(before);
    await crash("before-journal");
    expect(existsSync(join(root, JOURNAL_FILE))).toBe(false);
    await unlock(root, "crashed in a test");
    expect(await recover(root, "test")).toEqual({ kind: "discarded" });
    expect(tree()).toEqual({ ...before, [UNLOCK_LOG]: expect.any(String) });
  });
});

describe("unlock", () => {
  const at = () => new Date("2024-05-02T08:30:00Z");

  it("removes the lock of a process that is gone and logs who held it and why", async () => {
    const pid = await deadPid();
    write({ [LOCK_FILE]: lockOf(pid) });
    const result = await unlock(root, "the laptop\nslept", { now: at });
    expect(result.removed).toBe(true);
    expect(result.owner).toEqual({ pid, host: hostname(), at: "2024-05-01T10:00:00.000Z", command: "taskgate claim" });
    expect(result.message).toContain(`pid ${pid}`);
    expect(existsSync(join(root, LOCK_FILE))).toBe(false);
    expect(read(UNLOCK_LOG)).toBe(
      `2024-05-02T08:30:00.000Z removed the lock of pid ${pid} on ${JSON.stringify(hostname())} ` +
        `(command "taskgate claim", since "2024-05-01T10:00:00.000Z"); reason: "the laptop\\nslept"\n`,
    );
    write({ [LOCK_FILE]: lockOf(pid) });
    await unlock(root, "again", { now: at });
    expect(read(UNLOCK_LOG).split("\n")).toHaveLength(3);
  });

  it("refuses the lock of a live process", async () => {
    write({ [LOCK_FILE]: lockOf(process.pid) });
    const error = await unlock(root, "I think it hung").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockError);
    expect((error as LockError).message).toContain(`pid ${process.pid}`);
    expect((error as LockError).message).toContain("still running");
    expect(tree()).toEqual({ [LOCK_FILE]: lockOf(process.pid) });
  });

  it("refuses the lock of another host, whose processes it cannot see", async () => {
    const pid = await deadPid();
    write({ [LOCK_FILE]: lockOf(pid, "elsewhere.example") });
    await expect(unlock(root, "crashed")).rejects.toThrow(/elsewhere\.example/);
    expect(tree()).toEqual({ [LOCK_FILE]: lockOf(pid, "elsewhere.example") });
  });

  it("refuses a lock file it cannot read", async () => {
    write({ [LOCK_FILE]: "" });
    const error = await unlock(root, "crashed").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockError);
    expect((error as LockError).hint).toContain(join(root, LOCK_FILE));
    expect(tree()).toEqual({ [LOCK_FILE]: "" });
  });

  it.each(["", "  \n"])("needs a reason (%j)", async (reason) => {
    const pid = await deadPid();
    write({ [LOCK_FILE]: lockOf(pid) });
    await expect(unlock(root, reason)).rejects.toThrow(RepositoryError);
    expect(tree()).toEqual({ [LOCK_FILE]: lockOf(pid) });
  });

  it("says so when there is no lock", async () => {
    expect(await unlock(root, "just checking")).toEqual({
      removed: false,
      owner: undefined,
      message: "the work tree is not locked",
    });
    expect(tree()).toEqual({});
  });
});
