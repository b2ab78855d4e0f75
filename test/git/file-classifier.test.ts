/**
 * The one classifier of files (src/core/kernel/files.ts) with its default limit, and the readers of
 * the git adapter that use it: a commit's tree and the work tree classify the same files alike.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BINARY_CONTENT,
  BINARY_SNIFF_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  MODE_FILE,
  MODE_SUBMODULE,
  MODE_SYMLINK,
  classifyFile,
} from "../../src/core/index.js";
import { GitRepository } from "../../src/git/repository.js";
import { WorkTree } from "../../src/git/worktree.js";
import { tempRepo } from "../helpers/git.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("classifyFile", () => {
  it("has a default limit of 1 MiB", () => {
    expect(DEFAULT_MAX_FILE_BYTES).toBe(1048576);
    expect(BINARY_SNIFF_BYTES).toBe(8000);
  });

  it("reads a text file with its text, from bytes or from text", () => {
    expect(classifyFile({ path: "a.md", mode: MODE_FILE, size: 3, content: bytes("hé") })).toEqual({
      path: "a.md",
      kind: "file",
      size: 3,
      text: "hé",
    });
    expect(classifyFile({ path: "a.md", mode: "100755", size: 2, oid: "abc", content: "hi" })).toEqual({
      path: "a.md",
      kind: "file",
      size: 2,
      text: "hi",
      oid: "abc",
    });
  });

  it("keeps a byte-order mark", () => {
    const entry = classifyFile({
      path: "b",
      mode: MODE_FILE,
      size: 4,
      content: new Uint8Array([0xef, 0xbb, 0xbf, 0x41]),
    });
    expect(entry.text).toBe("\ufeffA");
  });

  it("is oversized one byte over the limit, a file exactly at it", () => {
    const at = "x".repeat(DEFAULT_MAX_FILE_BYTES);
    expect(classifyFile({ path: "f", mode: MODE_FILE, size: at.length, content: at }).kind).toBe("file");
    const over = classifyFile({ path: "f", mode: MODE_FILE, size: at.length + 1, content: `${at}x` });
    expect(over).toEqual({ path: "f", kind: "oversized", size: DEFAULT_MAX_FILE_BYTES + 1 });
    expect(classifyFile({ path: "f", mode: MODE_FILE, size: 11, content: "hello world" }, 10).kind).toBe("oversized");
    expect(classifyFile({ path: "f", mode: MODE_FILE, size: 10, content: "0123456789" }, 10).kind).toBe("file");
    // Not read: oversized whatever its size.
    expect(classifyFile({ path: "f", mode: MODE_FILE, size: 5 }).kind).toBe("oversized");
  });

  it("is binary with a NUL byte inside the sniff window, text with one past it", () => {
    const inside = `${"a".repeat(BINARY_SNIFF_BYTES - 1)}\0`;
    const past = `${"a".repeat(BINARY_SNIFF_BYTES)}\0`;
    expect(classifyFile({ path: "b", mode: MODE_FILE, size: inside.length, content: inside }).kind).toBe("binary");
    expect(classifyFile({ path: "b", mode: MODE_FILE, size: inside.length, content: bytes(inside) }).kind).toBe(
      "binary",
    );
    expect(classifyFile({ path: "t", mode: MODE_FILE, size: past.length, content: past }).kind).toBe("file");
    expect(classifyFile({ path: "t", mode: MODE_FILE, size: past.length, content: bytes(past) }).kind).toBe("file");
    // The window counts bytes: 4000 two-byte characters fill it, so the NUL after them is past it.
    const wide = `${"é".repeat(BINARY_SNIFF_BYTES / 2)}\0`;
    expect(classifyFile({ path: "t", mode: MODE_FILE, size: BINARY_SNIFF_BYTES + 1, content: wide }).kind).toBe("file");
    expect(classifyFile({ path: "b", mode: MODE_FILE, size: 9, content: BINARY_CONTENT })).toEqual({
      path: "b",
      kind: "binary",
      size: 9,
    });
  });

  it("reports a symlink with its target, and a submodule by its mode", () => {
    expect(classifyFile({ path: "l", mode: MODE_SYMLINK, size: 6, content: "target" })).toEqual({
      path: "l",
      kind: "symlink",
      size: 6,
      target: "target",
    });
    expect(classifyFile({ path: "l", mode: MODE_SYMLINK, size: 6 })).toEqual({ path: "l", kind: "symlink", size: 6 });
    expect(classifyFile({ path: "m", mode: MODE_SUBMODULE, size: 0, oid: "c0ffee" })).toEqual({
      path: "m",
      kind: "submodule",
      size: 0,
      oid: "c0ffee",
    });
    // A symlink or a submodule is never oversized.
    expect(classifyFile({ path: "l", mode: MODE_SYMLINK, size: 20, content: "x" }, 10).kind).toBe("symlink");
  });
});

describe("the git adapter's readers classify alike", () => {
  const repo = tempRepo();
  afterAll(() => repo.remove());

  it("a commit's tree and the work tree give the same kinds, sizes and texts", async () => {
    const atLimit = "y".repeat(64);
    repo.write({
      "s/text.md": "hello\n",
      "s/at-limit.txt": atLimit,
      "s/over-limit.txt": `${atLimit}y`,
      "s/late-nul.bin": `${"a".repeat(BINARY_SNIFF_BYTES)}\0`,
    });
    writeFileSync(join(repo.dir, "s/nul.bin"), Buffer.from([0x41, 0, 0x42]));
    symlinkSync("text.md", join(repo.dir, "s/link"));
    repo.commit("files");
    const limits = { maxFileBytes: 64, perPath: { "s/late-nul.bin": 100000 } };
    const scope = { paths: [], prefixes: ["s/"] };
    const committed = await (await GitRepository.open(repo.dir)).readSnapshot("HEAD", scope, limits);
    const onDisk = await new WorkTree(repo.dir).readSnapshot("work tree", scope, limits);
    const kinds = (files: typeof committed.files) =>
      Object.fromEntries(
        [...files.values()].map(({ path, kind, size, text, target }) => [path, { kind, size, text, target }]),
      );
    expect(kinds(onDisk.files)).toEqual(kinds(committed.files));
    expect(Object.fromEntries([...committed.files.values()].map((entry) => [entry.path, entry.kind]))).toEqual({
      "s/text.md": "file",
      "s/at-limit.txt": "file",
      "s/over-limit.txt": "oversized",
      "s/late-nul.bin": "file",
      "s/nul.bin": "binary",
      "s/link": "symlink",
    });
  });
});

describe("the work tree reader", () => {
  it("reads every file of a folder without a scope", async () => {
    const dir = mkdtempSync(join(tmpdir(), "taskgate-classify-"));
    try {
      writeFileSync(join(dir, "plain"), "x");
      const snapshot = await new WorkTree(dir).readSnapshot("work tree");
      expect([...snapshot.files.values()]).toEqual([{ path: "plain", kind: "file", size: 1, text: "x" }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
