/** The files taskgate keeps in a checkout, named in one module, and its one atomic write. */
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOCAL_FILES as FRAMEWORK_LOCAL_FILES } from "../../src/core/index.js";
import {
  EXCLUDE_LINES,
  JOURNAL_FILE,
  LOCAL_FILES,
  LOCK_FILE,
  TEMP_SUFFIX,
  UNLOCK_LOG,
  temporaryOf,
  writeAtomic,
} from "../../src/git/local-files.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "taskgate-local-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the local files", () => {
  it("are the files the rules refuse in a change, and git is told to ignore", () => {
    expect(LOCAL_FILES).toEqual([LOCK_FILE, JOURNAL_FILE, UNLOCK_LOG]);
    expect([...FRAMEWORK_LOCAL_FILES]).toEqual([...LOCAL_FILES]);
    expect(EXCLUDE_LINES).toEqual([
      "/.taskgate.lock",
      "/.taskgate.journal.json",
      "/.taskgate.unlock.log",
      "*.taskgate.tmp",
    ]);
    expect(temporaryOf("/a/b.md")).toBe(`/a/b.md${TEMP_SUFFIX}`);
  });
});

describe("writeAtomic", () => {
  it("replaces a file, keeping its permissions, and leaves no temporary file", async () => {
    const file = join(dir, "a.txt");
    writeFileSync(file, "old");
    chmodSync(file, 0o640);
    await writeAtomic(file, "new");
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(["a.txt"]);
  });

  it("gives a new file the mode asked for, and removes a temporary file left before", async () => {
    const file = join(dir, "hook");
    writeFileSync(temporaryOf(file), "planted");
    await writeAtomic(file, "#!/bin/sh\n", { mode: 0o755 });
    expect(statSync(file).mode & 0o777).toBe(0o755);
    expect(readdirSync(dir)).toEqual(["hook"]);
  });

  it("fails without a folder, leaving nothing", async () => {
    await expect(writeAtomic(join(dir, "missing", "a.txt"), "x")).rejects.toMatchObject({ code: "ENOENT" });
    expect(readdirSync(dir)).toEqual([]);
  });
});
