/**
 * How the git adapter reads large revisions: scopes of thousands of folders, git's output taken in
 * chunks (objects and headers cut at a chunk's edge), and no output file left behind. Each check
 * compares with what `git` itself says, so a shortcut that loses or mixes up content fails.
 */
import { execFileSync } from "node:child_process";
import { openSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { scopeMatcher } from "../../src/core/kernel/port.js";
import { BINARY_CONTENT } from "../../src/core/index.js";
import { BlobFile, StoredBlob, scanBatchFile, type BlobContent } from "../../src/git/blobs.js";
import { GitRepository, listingPathspecs } from "../../src/git/repository.js";
import { tempRepo, type TempRepo } from "../helpers/git.js";

let repo: TempRepo;
let head: string;
/** Every path of the commit with its content, as `git` reads it. */
const expected = new Map<string, string>();

const FOLDERS = 300;

beforeAll(() => {
  repo = tempRepo();
  const files: Record<string, string> = {};
  // Sizes that put object boundaries and headers at every offset of a 4 MiB chunk sooner or later.
  for (let i = 0; i < FOLDERS; i++) {
    const id = `t${String(i).padStart(4, "0")}`;
    files[`tasks/${id}/.state`] = `state-${i}\n`;
    files[`tasks/${id}/NOTES.md`] = `${id} `.repeat(1 + ((i * 7919) % 9000));
    files[`tasks/${id}x.md`] = `neighbour of ${id}\n`; // shares the folder's name as a prefix
  }
  files["big/ledger.json"] = `${"é".repeat(3 * 1024 * 1024)}\n`; // 6 MiB: spans two chunks
  files["other/keep.md"] = "outside every scope\n";
  files["other/utf.md"] = "héllo wörld ✓ 𝄞\n"; // two-, three- and four-byte characters
  files["other/data.bin"] = "ab\u0000cd\u0000"; // a NUL: binary
  repo.write(files);
  // Text that ends inside a character: decoded as a whole read would decode it.
  writeFileSync(join(repo.dir, "other/cut.md"), Buffer.from([0x61, 0xe2, 0x9c]));
  head = repo.commit("many files");
  expected.set("other/cut.md", Buffer.from([0x61, 0xe2, 0x9c]).toString("utf8"));
  for (const [path, text] of Object.entries(files)) expected.set(path, text);
});

afterAll(() => repo.remove());

describe("reading a revision in chunks", () => {
  it("reads every file's exact text, whatever the chunk boundaries", async () => {
    const git = await GitRepository.open(repo.dir, { maxFileBytes: 8 * 1024 * 1024 });
    const snapshot = await git.readSnapshot(head);
    expect(snapshot.files.size).toBe(expected.size);
    for (const [path, text] of expected) {
      const entry = snapshot.files.get(path);
      if (path.endsWith(".bin")) {
        expect(entry?.kind, path).toBe("binary");
        continue;
      }
      expect(entry?.kind, path).toBe("file");
      expect(entry?.kind === "file" && entry.text === text, path).toBe(true);
    }
  });

  it("reads a file larger than a chunk whole under its own limit", async () => {
    const git = await GitRepository.open(repo.dir);
    const snapshot = await git.readSnapshot(
      head,
      { paths: ["big/ledger.json"], prefixes: [] },
      { perPath: { "big/ledger.json": 16 * 1024 * 1024 } },
    );
    const entry = snapshot.files.get("big/ledger.json");
    expect(entry?.kind === "file" && entry.text).toBe(expected.get("big/ledger.json"));
  });

  it("leaves no output file behind", async () => {
    const git = await GitRepository.open(repo.dir);
    await git.readSnapshot(head, { paths: [], prefixes: ["tasks/"] });
    await expect(git.resolve("no-such-branch")).rejects.toThrow(/no-such-branch/);
    const leftovers = readdirSync(tmpdir())
      .filter((name) => name.startsWith("taskgate-git-"))
      .flatMap((name) => readdirSync(`${tmpdir()}/${name}`).filter((file) => file.includes(`-${process.pid}-`)));
    expect(leftovers).toEqual([]);
  });
});

describe("refs resolved together", () => {
  it("take one git process, and an unknown one fails alone", async () => {
    const spawns: (readonly string[])[] = [];
    const git = await GitRepository.open(repo.dir, { onSpawn: (args) => spawns.push(args) });
    spawns.length = 0;
    const [main, same, unknown, tree] = await Promise.allSettled([
      git.resolve("main"),
      git.resolve("HEAD"),
      git.resolve("no-such-branch"),
      git.resolve(`${head}^{tree}`),
    ]);
    expect(main.status === "fulfilled" && main.value).toBe(head);
    expect(same.status === "fulfilled" && same.value).toBe(head);
    expect(unknown.status === "rejected" && String(unknown.reason)).toMatch(/ref not found: no-such-branch/);
    expect(tree.status).toBe("rejected"); // a tree is not a commit
    expect(spawns).toHaveLength(1);
    await expect(git.resolve("main\nHEAD")).rejects.toThrow(/ref not found/);
  });
});

describe("snapshots read together", () => {
  it("share one cat-file process, and each gets exactly its own files", async () => {
    const spawns: (readonly string[])[] = [];
    const git = await GitRepository.open(repo.dir, { onSpawn: (args) => spawns.push(args) });
    const [a, b] = await Promise.all([
      git.readSnapshot(head, { paths: [], prefixes: ["tasks/t0001/"] }),
      git.readSnapshot(head, { paths: ["other/keep.md"], prefixes: [] }),
    ]);
    expect([...a.files.keys()].sort()).toEqual(["tasks/t0001/.state", "tasks/t0001/NOTES.md"]);
    expect([...b.files.keys()]).toEqual(["other/keep.md"]);
    expect(spawns.filter((args) => args.includes("cat-file"))).toHaveLength(1);
    expect(spawns.filter((args) => args.includes("ls-tree"))).toHaveLength(2);
  });

  it("do not wait for a listing that fails", async () => {
    const git = await GitRepository.open(repo.dir);
    const [good, bad] = await Promise.allSettled([
      git.readSnapshot(head, { paths: ["other/keep.md"], prefixes: [] }),
      git.readSnapshot("no-such-branch", { paths: ["other/keep.md"], prefixes: [] }),
    ]);
    expect(good.status === "fulfilled" && good.value.files.size).toBe(1);
    expect(bad.status === "rejected" && String(bad.reason)).toMatch(/no-such-branch/);
    // And the other order: the failing listing is the last one running.
    const slow = git.readSnapshot(head, { paths: [], prefixes: ["tasks/"] });
    const failing = git.readSnapshot("no-such-branch", { paths: ["x"], prefixes: [] }).catch(() => "refused");
    expect([(await slow).files.size, await failing]).toEqual([FOLDERS * 2 + FOLDERS, "refused"]);
  });
});

describe("scanBatchFile", () => {
  /** `cat-file --batch` output for these objects, in a file, open. */
  const outputOf = (shas: string[]) => {
    const output = execFileSync("git", ["cat-file", "--batch"], {
      cwd: repo.dir,
      input: `${shas.join("\n")}\n`,
      maxBuffer: 64 * 1024 * 1024,
    });
    const path = join(tmpdir(), `taskgate-scan-${process.pid}-${Math.random().toString(36).slice(2)}`);
    writeFileSync(path, output);
    const fd = openSync(path, "r");
    unlinkSync(path);
    return { output, file: new BlobFile(fd) };
  };

  it("hands over every object whole, wherever the reads cut headers and contents", () => {
    // Objects of every kind: small and large texts, several characters cut at the head's end, binary.
    const names = [
      "tasks/t0001/.state",
      "other/utf.md",
      "tasks/t0000/NOTES.md",
      "other/data.bin",
      "tasks/t0003x.md",
      "tasks/t0007/NOTES.md",
      "other/keep.md",
      "other/cut.md",
      "tasks/t0002/NOTES.md",
      "big/ledger.json",
    ];
    const shas = names.map((path) => repo.git("rev-parse", `${head}:${path}`));
    const { output, file } = outputOf(shas);
    const smallest = 8256; // a header and a binary sniff always fit
    for (const chunk of [smallest, smallest + 1, smallest + 77, 12_345, 65_536, output.length]) {
      const seen = new Map<string, BlobContent>();
      scanBatchFile(file, output.length, (sha, content) => seen.set(sha, content), chunk);
      expect(
        names.map((path, i) => {
          const content = seen.get(shas[i]!);
          if (path.endsWith(".bin")) return content === BINARY_CONTENT;
          const text =
            typeof content === "string" ? content : content instanceof StoredBlob ? content.decode() : undefined;
          return text === expected.get(path);
        }),
        `reads of ${chunk}`,
      ).toEqual(names.map(() => true));
    }
    file.close();
  });

  it("keeps a small text decoded and a larger one as its head, exact or cut", () => {
    const shas = ["tasks/t0001/.state", "other/utf.md", "tasks/t0002/NOTES.md", "big/ledger.json"].map((path) =>
      repo.git("rev-parse", `${head}:${path}`),
    );
    const { output, file } = outputOf(shas);
    const seen: BlobContent[] = [];
    expect(scanBatchFile(file, output.length, (_sha, content) => seen.push(content))).toBe(true);
    expect(seen[0]).toBe("state-1\n");
    expect(seen[1]).toBe(expected.get("other/utf.md"));
    const notes = seen[2] as StoredBlob;
    // NOTES.md has no line feed: its head is its first 256 bytes, marked as possibly cut.
    expect([notes.head, notes.headExact, notes.blank]).toEqual([
      expected.get("tasks/t0002/NOTES.md")!.slice(0, 256),
      false,
      false,
    ]);
    const ledger = seen[3] as StoredBlob;
    // Two-byte characters: the 256th byte ends one, so nothing is cut, yet the head is not a line.
    expect(ledger.head).toBe("é".repeat(128));
    file.close();
  });

  it("says when git's output stops inside an object, and names a missing one", () => {
    const write = (text: string) => {
      const path = join(tmpdir(), `taskgate-scan-${process.pid}-${Math.random().toString(36).slice(2)}`);
      writeFileSync(path, text);
      const fd = openSync(path, "r");
      unlinkSync(path);
      return new BlobFile(fd);
    };
    const truncated = "0123456789012345678901234567890123456789 blob 10\nabc";
    expect(() => scanBatchFile(write(truncated), truncated.length, () => {})).toThrow(/truncated object/);
    const missing = "abcdef missing\n";
    expect(() => scanBatchFile(write(missing), missing.length, () => {})).toThrow(/cannot read object abcdef/);
    // The header is read in place: a size that is no size, or none, is refused; the id is the first word.
    const sha = "0123456789012345678901234567890123456789";
    for (const header of [`${sha} blob 1x`, `${sha} blob `, `${sha} blob -1`, `${sha} blob 99999999999999999999`]) {
      const text = `${header}\nabc\n`;
      expect(() => scanBatchFile(write(text), text.length, () => {}), header).toThrow(/malformed|size/);
    }
    const nameOnly = "abcdef\n";
    expect(() => scanBatchFile(write(nameOnly), nameOnly.length, () => {})).toThrow(/cannot read object abcdef/);
    const good = `${sha} blob 3\nabc\n${sha.replace("0", "f")} blob 0\n\n`;
    const seen: [string, BlobContent][] = [];
    scanBatchFile(write(good), good.length, (id, content) => seen.push([id, content]));
    expect(seen).toEqual([
      [sha, "abc"],
      [sha.replace("0", "f"), ""],
    ]);
    // Asked for in order, git must answer in order: another object, or fewer, is refused.
    const other = sha.replace("0", "f");
    expect(() => scanBatchFile(write(good), good.length, () => {}, undefined, [other, sha])).toThrow(
      /object 0123.* where f123.* was asked for/,
    );
    expect(() => scanBatchFile(write(good), good.length, () => {}, undefined, [sha, other, sha])).toThrow(
      /2 object\(s\) where 3 were asked for/,
    );
    const named: string[] = [];
    scanBatchFile(write(good), good.length, (id) => named.push(id), undefined, [sha, other]);
    expect(named).toEqual([sha, other]);
  });

  it("shares the first line of texts that start alike, and decodes every other one", () => {
    const blob = (bytes: Buffer, id: string) =>
      Buffer.concat([Buffer.from(`${id} blob ${bytes.length}\n`), bytes, Buffer.from("\n")]);
    const body = Buffer.from("x".repeat(300));
    const heads = [
      Buffer.from("<!-- stamp -->\n"),
      Buffer.from("<!-- stamp -->\n"), // the same bytes: the same text
      Buffer.from([0xc3, 0xa9, 0x0a]), // "é\n": two characters from three bytes
      Buffer.from([0xe9, 0x0a]), // a lone 0xE9 (not UTF-8) and a line feed: two bytes, two characters
      Buffer.from("<!-- stamp -->\n"),
    ];
    const output = Buffer.concat(heads.map((head, index) => blob(Buffer.concat([head, body]), `obj${index}`)));
    const path = join(tmpdir(), `taskgate-heads-${process.pid}`);
    writeFileSync(path, output);
    const file = new BlobFile(openSync(path, "r"));
    unlinkSync(path);
    const seen: StoredBlob[] = [];
    scanBatchFile(file, output.length, (_id, content) => seen.push(content as StoredBlob));
    expect(seen.map((blob) => blob.head)).toEqual(heads.map((head) => head.toString("utf8")));
    expect(seen[3]!.head).toBe("\ufffd\n");
    file.close();
  });
});

describe("sizes from the listing", () => {
  it("are git's own for every entry, and a blob git cannot size is named with its path", async () => {
    const git = await GitRepository.open(repo.dir, { maxFileBytes: 8 * 1024 * 1024 });
    const snapshot = await git.readSnapshot(head);
    const sizes = repo
      .git("ls-tree", "-r", "--format=%(objectsize) %(path)", head)
      .split("\n")
      .map((line) => [line.slice(line.indexOf(" ") + 1), Number(line.slice(0, line.indexOf(" ")))]);
    expect(sizes).toHaveLength(expected.size);
    for (const [path, size] of sizes) expect(snapshot.files.get(path as string)?.size, path as string).toBe(size);

    const broken = tempRepo();
    try {
      broken.write({ "a.txt": "hi\n", "sub/b.md": "x\n" });
      const commit = broken.commit("two files");
      const oid = broken.git("rev-parse", `${commit}:a.txt`);
      rmSync(join(broken.dir, ".git/objects", oid.slice(0, 2), oid.slice(2)));
      const reader = await GitRepository.open(broken.dir);
      await expect(reader.readSnapshot(commit)).rejects.toThrow(`cannot read object ${oid} (a.txt)`);
      // Outside the scope, the missing blob is not listed, so not asked about.
      expect([...(await reader.readSnapshot(commit, { paths: [], prefixes: ["sub"] })).files.keys()]).toEqual([
        "sub/b.md",
      ]);
    } finally {
      broken.remove();
    }
  });
});

describe("a scope of many folders", () => {
  it("reads exactly the scope's folders and files, with a bounded number of pathspecs", async () => {
    const spawns: (readonly string[])[] = [];
    const git = await GitRepository.open(repo.dir, { onSpawn: (args) => spawns.push(args) });
    const chosen = Array.from({ length: 200 }, (_, i) => `tasks/t${String(i).padStart(4, "0")}`);
    const snapshot = await git.readSnapshot(head, { paths: ["other/keep.md", "tasks"], prefixes: chosen });
    const want = [...expected.keys()].filter(
      (path) => path === "other/keep.md" || chosen.some((folder) => path.startsWith(`${folder}/`)),
    );
    expect([...snapshot.files.keys()].sort()).toEqual(want.sort());
    const listing = spawns.find((args) => args.includes("ls-tree"))!;
    expect(listing.length - listing.indexOf("--") - 1).toBeLessThanOrEqual(64);
  });

  it("passes a small scope to git as it is", async () => {
    const spawns: (readonly string[])[] = [];
    const git = await GitRepository.open(repo.dir, { onSpawn: (args) => spawns.push(args) });
    await git.readSnapshot(head, { paths: ["other/keep.md"], prefixes: ["tasks/t0001/"] });
    const listing = spawns.find((args) => args.includes("ls-tree"))!;
    expect(listing.slice(listing.indexOf("--") + 1).sort()).toEqual(["other/keep.md", "tasks/t0001/"]);
  });

  it("collapses thousands of folders to their parents, one level at a time", () => {
    const prefixes = Array.from({ length: 5000 }, (_, i) => `tasks/group-${i % 10}/t${i}/`);
    expect(listingPathspecs({ paths: [], prefixes }).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `tasks/group-${i}/`).sort(),
    );
    const spread = Array.from({ length: 5000 }, (_, i) => `a${i}/b/`);
    expect(listingPathspecs({ paths: [], prefixes: spread })).toEqual(["/"]);
    expect(listingPathspecs({ paths: [], prefixes: ["/"] })).toEqual(["/"]);
    expect(listingPathspecs({ paths: [], prefixes: [] })).toEqual([]);
  });
});

describe("scopeMatcher", () => {
  const cases = (prefixes: string[]) => scopeMatcher({ paths: ["tasks/a"], prefixes });

  for (const [label, prefixes] of [
    ["few folders", ["tasks/a", "docs/"]],
    ["many folders", ["tasks/a", "docs/", ...Array.from({ length: 20 }, (_, i) => `x${i}/`)]],
  ] as const) {
    it(`matches folders and exact paths only (${label})`, () => {
      const matches = cases([...prefixes]);
      expect(matches("tasks/a/.state")).toBe(true);
      expect(matches("tasks/a/deep/er.md")).toBe(true);
      expect(matches("tasks/a")).toBe(true);
      expect(matches("tasks/ab.md")).toBe(false);
      expect(matches("tasks/b/.state")).toBe(false);
      expect(matches("docs/readme.md")).toBe(true);
      expect(matches("docsx/readme.md")).toBe(false);
    });
  }

  it("reads the whole revision for a root prefix or no scope", () => {
    expect(scopeMatcher(undefined)("any/path")).toBe(true);
    expect(scopeMatcher({ paths: [], prefixes: ["/"] })("any/path")).toBe(true);
    expect(scopeMatcher({ paths: [], prefixes: [""] })("any/path")).toBe(true);
    expect(scopeMatcher({ paths: [], prefixes: [] })("any/path")).toBe(false);
  });

  it("agrees with git on a real listing", () => {
    const listed = execFileSync("git", ["ls-tree", "-r", "--name-only", head], { cwd: repo.dir, encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
    const matches = scopeMatcher({ paths: [], prefixes: ["tasks/t0002"] });
    expect(listed.filter(matches).sort()).toEqual(["tasks/t0002/.state", "tasks/t0002/NOTES.md"]);
  });
});
