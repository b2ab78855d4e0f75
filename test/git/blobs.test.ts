/**
 * Blobs kept in git's output file (src/git/blobs.ts) judged against the same bytes read whole: the
 * kind, the text, whether the file is empty and whether it starts with a prefix must be the same
 * whichever way the bytes came, for any bytes (white space of every kind, characters cut at the
 * head's end, NULs past the sniff window).
 */
import { execFileSync } from "node:child_process";
import { openSync, readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { BINARY_SNIFF_BYTES, HEAD_BYTES, MODE_FILE, classifyFile } from "../../src/core/index.js";
import { fileStartsWith, isEmptyFile } from "../../src/core/kernel/files.js";
import {
  BlobFile,
  SMALL_TEXT_BYTES,
  WINDOW_BYTES,
  scanBatchFile,
  scanChunkFor,
  type BlobContent,
  type StoredBlob,
} from "../../src/git/blobs.js";
import { GitRepository } from "../../src/git/repository.js";
import { tempRepo } from "../helpers/git.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** `cat-file --batch` output of these blobs (made-up ids), in an open file whose name is gone. */
function batchFile(blobs: readonly Uint8Array[]): { file: BlobFile; size: number; shas: string[] } {
  const shas = blobs.map((_, i) => i.toString(16).padStart(40, "0"));
  const parts = blobs.flatMap((bytes, i) => [
    Buffer.from(`${shas[i]} blob ${bytes.length}\n`),
    Buffer.from(bytes),
    Buffer.from("\n"),
  ]);
  const output = Buffer.concat(parts);
  const path = join(tmpdir(), `taskgate-blobs-${process.pid}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, output);
  const fd = openSync(path, "r");
  unlinkSync(path);
  return { file: new BlobFile(fd), size: output.length, shas };
}

/** Texts near every threshold: small and stored, heads cut inside characters, white space of every kind. */
const piece = fc.oneof(
  fc.constantFrom(
    " ",
    "\t",
    "\n",
    "\r",
    "\u000b",
    "\f",
    "\u00a0",
    "\u2003",
    "\u3000",
    "\ufeff",
    "é",
    "✓",
    "𝄞",
    "a",
    "#",
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
);
const text = fc.oneof(
  fc.array(piece, { maxLength: 40 }).map((parts) => parts.join("")),
  fc
    .tuple(
      fc.array(piece, { maxLength: 10 }),
      fc.integer({ min: 0, max: 600 }),
      fc.constantFrom(" ", "é", "✓", "𝄞", "\n", "\u00a0", "\u3000 ", "\t"),
    )
    .map(([parts, count, filler]) => filler.repeat(count) + parts.join("")),
);
const bytesOf = (value: string) => new TextEncoder().encode(value);

describe("a blob kept in git's output file", () => {
  it("is the same file as its bytes read whole: kind, text, emptiness and every prefix", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(text.map(bytesOf), fc.uint8Array({ maxLength: 700 })), { minLength: 1, maxLength: 8 }),
        (blobs) => {
          const { file, size, shas } = batchFile(blobs);
          const seen = new Map<string, BlobContent>();
          scanBatchFile(file, size, (sha, content) => seen.set(sha, content));
          blobs.forEach((bytes, i) => {
            const path = `f${i}`;
            const stored = classifyFile({ path, mode: MODE_FILE, size: bytes.length, content: seen.get(shas[i]!)! });
            const whole = classifyFile({ path, mode: MODE_FILE, size: bytes.length, content: bytes });
            expect(stored.kind).toBe(whole.kind);
            expect(stored.text).toBe(whole.text);
            expect(isEmptyFile(stored)).toBe(isEmptyFile(whole));
            const wholeText = whole.text ?? "";
            for (const length of [
              0,
              1,
              2,
              5,
              HEAD_BYTES / 2,
              HEAD_BYTES - 1,
              HEAD_BYTES,
              HEAD_BYTES + 1,
              wholeText.length,
            ]) {
              const prefix = wholeText.slice(0, length);
              expect(fileStartsWith(stored, prefix)).toBe(fileStartsWith(whole, prefix));
              expect(fileStartsWith(stored, `${prefix}x`)).toBe(fileStartsWith(whole, `${prefix}x`));
            }
          });
          file.close();
        },
      ),
      { numRuns: 150 },
    );
  });

  it("tells binary from text across the scan's refills, wherever the NUL is", () => {
    // Enough bytes for several fills of the scan's buffer (at least 8 KiB each), texts and
    // binaries mixed, NULs anywhere: before, at and past the 8,000-byte sniff window.
    const blob = fc
      .tuple(fc.integer({ min: 0, max: 9000 }), fc.option(fc.integer({ min: 0, max: 9000 }), { nil: undefined }))
      .map(([length, nul]) => {
        const bytes = Buffer.alloc(length, "x");
        for (let at = 99; at < length; at += 100) bytes[at] = 0x0a;
        if (nul !== undefined && nul < length) bytes[nul] = 0;
        return new Uint8Array(bytes);
      });
    fc.assert(
      fc.property(
        fc.array(blob, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 20_000 }),
        (blobs, chunk) => {
          const { file, size } = batchFile(blobs);
          const seen: BlobContent[] = [];
          scanBatchFile(file, size, (_sha, content) => seen.push(content), chunk);
          blobs.forEach((bytes, i) => {
            const facts = { path: `f${i}`, mode: MODE_FILE, size: bytes.length };
            expect(classifyFile({ ...facts, content: seen[i]! }).kind).toBe(
              classifyFile({ ...facts, content: bytes }).kind,
            );
          });
          file.close();
        },
      ),
      { numRuns: 100 },
    );
  });

  it("decodes a small text at once and reads a larger one from the file, each time", () => {
    const small = "a".repeat(SMALL_TEXT_BYTES);
    const large = `${"b".repeat(SMALL_TEXT_BYTES)}\nrest`;
    const binary = `${"c".repeat(BINARY_SNIFF_BYTES - 1)}\u0000`;
    const late = `${"d".repeat(BINARY_SNIFF_BYTES)}\u0000`; // a NUL past the window: text
    const { file, size, shas } = batchFile([small, large, binary, late].map(bytesOf));
    const seen: BlobContent[] = [];
    expect(scanBatchFile(file, size, (_sha, content) => seen.push(content))).toBe(true);
    expect(shas).toHaveLength(4);
    expect(seen[0]).toBe(small);
    const entry = classifyFile({ path: "large", mode: MODE_FILE, size: large.length, content: seen[1]! });
    expect([entry.kind, entry.text, entry.text, Object.keys(entry).sort()]).toEqual([
      "file",
      large,
      large,
      ["kind", "path", "size", "text"],
    ]);
    expect(JSON.parse(JSON.stringify(entry))).toEqual({ path: "large", kind: "file", size: large.length, text: large });
    expect(classifyFile({ path: "bin", mode: MODE_FILE, size: binary.length, content: seen[2]! }).kind).toBe("binary");
    expect(classifyFile({ path: "late", mode: MODE_FILE, size: late.length, content: seen[3]! }).text).toBe(late);
    file.close();
  });
});

describe("the scan's buffer", () => {
  it("is made large enough for the largest text read later, within the limit of one reused buffer", () => {
    const MiB = 1024 * 1024;
    expect(scanChunkFor(0)).toBe(4 * MiB);
    expect(scanChunkFor(4 * MiB)).toBe(4 * MiB);
    expect(scanChunkFor(4.5 * MiB)).toBe(4.5 * MiB); // a board's ledger: one buffer for the scan and its text
    expect(scanChunkFor(8 * MiB)).toBe(8 * MiB);
    expect(scanChunkFor(8 * MiB + 1)).toBe(4 * MiB); // read into a buffer of its own, as before
  });

  it("gives the same texts whatever its size, for a text larger than the usual chunk", () => {
    const texts = ["small\n", `${"ledger ".repeat(700_000)}\n`, "after\n"];
    const output = Buffer.concat(
      texts.map((text, index) => Buffer.from(`obj${index} blob ${Buffer.byteLength(text)}\n${text}\n`)),
    );
    const path = join(tmpdir(), `taskgate-chunk-${process.pid}`);
    writeFileSync(path, output);
    for (const chunk of [scanChunkFor(0), scanChunkFor(Buffer.byteLength(texts[1]!))]) {
      const file = new BlobFile(openSync(path, "r"));
      const seen: BlobContent[] = [];
      scanBatchFile(file, output.length, (_id, content) => seen.push(content), chunk);
      expect(seen.map((content) => (typeof content === "string" ? content : (content as StoredBlob).decode()))).toEqual(
        texts,
      );
      file.close();
    }
    unlinkSync(path);
  });
});

describe("texts read through the window of their file", () => {
  it("are their own bytes, in any order, across files, near and past the window's size", () => {
    // Stored texts of every size: many to a window, one near the window's size (256 KiB), one
    // larger than it (read on its own); from two files, read in random interleaved orders.
    const sizes = [300, 1000, 5000, 256 * 1024 - 400, 256 * 1024 + 17, 700, 90_000, 400];
    const files = [1, 2].map((seed) => {
      const texts = sizes.map((size, i) => {
        const line = `${seed}:${i} évidence ✓ 𝄞\n`;
        return line
          .repeat(Math.ceil(size / line.length))
          .slice(0, size)
          .replace(/[\uD800-\uDBFF]$/, "");
      });
      const batch = batchFile(texts.map(bytesOf));
      const seen: BlobContent[] = [];
      scanBatchFile(batch.file, batch.size, (_sha, content) => seen.push(content));
      return { batch, texts, seen };
    });
    const reads = files.flatMap((file, f) => file.texts.map((_, i) => [f, i] as const));
    fc.assert(
      fc.property(fc.shuffledSubarray(reads, { minLength: reads.length }), (order) => {
        for (const [f, i] of order) {
          const { texts, seen } = files[f]!;
          // A fresh entry for each read: an entry keeps a text of 64 KiB or more once read.
          const bytes = Buffer.byteLength(texts[i]!);
          const entry = classifyFile({ path: `f${i}`, mode: MODE_FILE, size: bytes, content: seen[i]! });
          expect(entry.text).toBe(texts[i]);
        }
      }),
      { numRuns: 30 },
    );
    for (const { batch } of files) batch.file.close();
  });

  it.each([-1, 0, 1, 2])("reads a text ending %i byte(s) past the window the text before it opened", (past) => {
    const first = "a".repeat(1000);
    // Where the second text starts, from the first's: its LF, then the second's header.
    const header = (size: number) => `${"0".repeat(39)}1 blob ${size}\n`.length;
    let size = WINDOW_BYTES - 1001 + past;
    size -= header(size); // the header's length depends on the size's digits, which this does not change
    const second = `${"b".repeat(size - 1)}c`;
    expect(1000 + 1 + header(size) + size - WINDOW_BYTES).toBe(past);
    const { file, size: total } = batchFile([first, second].map(bytesOf));
    const seen: BlobContent[] = [];
    scanBatchFile(file, total, (_sha, content) => seen.push(content));
    const entryOf = (i: number, text: string) =>
      classifyFile({ path: `f${i}`, mode: MODE_FILE, size: text.length, content: seen[i]! });
    expect(entryOf(0, first).text).toBe(first);
    expect(entryOf(1, second).text).toBe(second);
    file.close();
  });
});

describe("reading snapshots", () => {
  const repo = tempRepo();
  let head: string;
  beforeAll(() => {
    repo.write({ "a.md": "small\n", "b.md": "also small\n", big: "x".repeat(4000) });
    head = repo.commit("files");
  });
  afterAll(() => repo.remove());

  it("keeps no file open after a read whose blobs were all small", async () => {
    const git = await GitRepository.open(repo.dir);
    const open = () => readdirSync("/proc/self/fd").length;
    await git.readSnapshot(head, { paths: ["a.md", "b.md"], prefixes: [] });
    const before = open();
    for (let i = 0; i < 20; i++) await git.readSnapshot(head, { paths: ["a.md", "b.md"], prefixes: [] });
    expect(open()).toBe(before);
    // A large text is read from the file when a rule reads it, as often as it is read.
    const big = (await git.readSnapshot(head, { paths: ["big"], prefixes: [] })).files.get("big")!;
    expect([big.text, big.text]).toEqual(["x".repeat(4000), "x".repeat(4000)]);
  });

  it("closes a file that holds large texts once no entry can read them", () => {
    // The built adapter in a process of its own, where garbage collection can be asked for.
    const script = `
      import { readdirSync } from "node:fs";
      import { GitRepository } from ${JSON.stringify(pathToFileURL(join(ROOT, "dist/git/repository.js")).href)};
      const git = await GitRepository.open(${JSON.stringify(repo.dir)});
      const open = () => readdirSync("/proc/self/fd").length;
      const before = open();
      let kept = [];
      for (let i = 0; i < 30; i++) kept.push(await git.readSnapshot("HEAD", { paths: ["big"], prefixes: [] }));
      const held = open() - before;
      const text = kept[0].files.get("big").text.length;
      kept = undefined;
      for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((done) => setTimeout(done, 20)); }
      console.log(JSON.stringify({ held, text, after: open() - before }));
    `;
    const out = execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual({ held: 30, text: 4000, after: 0 });
  });
});
