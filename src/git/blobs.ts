/**
 * git's blobs as the git adapter keeps them: in the file `cat-file --batch` wrote them to, not in
 * memory. One pass over that file (through one reused buffer, skipping what it need not see) learns
 * what each blob is: binary or not, white space only or not, its first line; a blob of at most
 * `SMALL_TEXT_BYTES` is decoded then and there. A larger text is read from the file when a rule
 * reads it. The file's name is removed as soon as git is done; it stays open while any blob of it
 * may still be read, and is closed when none can be.
 *
 * Why: an audit reads every artifact of every task, most only for their kind and size. Holding
 * them all in memory (as text or as bytes) costs more than reading them: a large tree's bytes are
 * tens of megabytes of fresh memory, and touching fresh memory is what costs most.
 */
import { closeSync, readSync } from "node:fs";

import { BINARY_CONTENT, BINARY_SNIFF_BYTES, HEAD_BYTES, bytesBlank, type StoredText } from "../core/index.js";
import { malformed, missingObject } from "./errors.js";

/** A blob of at most this many bytes is decoded as it is scanned (`.state` files, small records). */
export const SMALL_TEXT_BYTES = 256;

/** How much of the file a scan reads at a time (one buffer, reused). */
const SCAN_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * How much of a file to scan at a time when its largest blob has `largest` bytes: enough for that
 * blob's text too (up to `SCRATCH_MAX_BYTES`), so the buffer the scan touched serves the text's
 * read later (a board's ledger of 4.5 MB), rather than a second, fresh one.
 */
export function scanChunkFor(largest: number): number {
  return largest > SCAN_CHUNK_BYTES && largest <= SCRATCH_MAX_BYTES ? largest : SCAN_CHUNK_BYTES;
}

/** A `cat-file` header ("<sha> <type> <size>\n") is never longer than this. */
const MAX_HEADER_BYTES = 256;

/** Reads of at most this many bytes go through one buffer kept for them (fresh memory costs more than reading). */
const SCRATCH_MAX_BYTES = 8 * 1024 * 1024;
let scratchBuffer: Buffer | undefined;

/**
 * A buffer of at least `length` bytes for a read whose bytes are copied out before the next one:
 * the same one each time while reads stay within `SCRATCH_MAX_BYTES`, a fresh one above.
 */
function scratch(length: number): Buffer {
  if (length > SCRATCH_MAX_BYTES) return Buffer.allocUnsafe(length);
  if (scratchBuffer === undefined || scratchBuffer.length < length) {
    scratchBuffer = Buffer.allocUnsafe(Math.max(length, scratchBuffer?.length ?? 0));
  }
  return scratchBuffer;
}

/** What a blob holds: a small text decoded, a larger text where git wrote it, or binary. */
export type BlobContent = string | StoredBlob | typeof BINARY_CONTENT;

/** Closes the file of a `BlobFile` no one can read any more. */
const closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
});

/** The open file one `cat-file --batch` wrote (its name already removed). */
export class BlobFile {
  #fd: number | undefined;

  constructor(fd: number) {
    this.#fd = fd;
    closer.register(this, fd, this);
  }

  /** Reads `length` bytes from `position` into the start of `buffer`; throws when the file ends first. */
  readInto(buffer: Buffer, position: number, length: number): void {
    if (this.#fd === undefined) throw malformed("cat-file", "its output was closed");
    for (let filled = 0; filled < length; ) {
      const read = readSync(this.#fd, buffer, filled, length - filled, position + filled);
      if (read === 0) throw malformed("cat-file", "truncated object");
      filled += read;
    }
  }

  /**
   * Reads from `position` into the start of `buffer`, at least `least` bytes and as many more as
   * fit, up to the end of the file; returns how many. Throws when the file ends before `least`.
   */
  readAhead(buffer: Buffer, position: number, least: number): number {
    if (this.#fd === undefined) throw malformed("cat-file", "its output was closed");
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(this.#fd, buffer, filled, buffer.length - filled, position + filled);
      if (read === 0) break;
      filled += read;
    }
    if (filled < least) throw malformed("cat-file", "truncated object");
    return filled;
  }

  /** Closes the file now (no blob of it was kept). */
  close(): void {
    if (this.#fd === undefined) return;
    closer.unregister(this);
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** A text blob of more than `SMALL_TEXT_BYTES`, read from its file when its text is wanted. */
export class StoredBlob implements StoredText {
  readonly binary = false;

  constructor(
    private readonly file: BlobFile,
    private readonly position: number,
    private readonly size: number,
    readonly blank: boolean | undefined,
    readonly head: string,
    readonly headExact: boolean,
  ) {}

  decode(): string {
    if (this.size <= WINDOW_BYTES) return readThroughWindow(this.file, this.position, this.size);
    const bytes = scratch(this.size);
    this.file.readInto(bytes, this.position, this.size);
    return bytes.toString("utf8", 0, this.size);
  }
}

/**
 * Texts of at most this many bytes are read through a window of the file this large: blobs lie in
 * the file in the order they were listed, so a rule reading the texts of a folder in path order
 * (the secret scan of every evidence file) reads the file a window at a time, not a blob at a time.
 */
export const WINDOW_BYTES = 256 * 1024;
let windowBuffer: Buffer | undefined;
/** The file the window holds bytes of (weakly: the window never keeps a file open), from `windowBase`. */
let windowFile: WeakRef<BlobFile> | undefined;
let windowBase = 0;
let windowFilled = 0;

function readThroughWindow(file: BlobFile, position: number, size: number): string {
  const buffer = (windowBuffer ??= Buffer.allocUnsafe(WINDOW_BYTES));
  const inside = windowFile?.deref() === file && position >= windowBase && position + size <= windowBase + windowFilled;
  if (!inside) {
    windowFile = undefined; // Until the read succeeds, the window holds nothing.
    windowFilled = file.readAhead(buffer, position, size);
    windowBase = position;
    windowFile = new WeakRef(file);
  }
  return buffer.toString("utf8", position - windowBase, position - windowBase + size);
}

/**
 * Scans `size` bytes of `cat-file --batch` output in `file` (per object "<sha> <type> <size>\n",
 * its content and "\n"; "<name> missing\n" throws) and hands over what each object holds. Reads
 * at most the first `BINARY_SNIFF_BYTES` of each object, through one buffer of `chunkBytes`; the
 * rest of a large object is skipped unread. Returns whether any `StoredBlob` was handed over (if
 * not, the file can be closed at once).
 *
 * With `names`, the object ids git was asked for in order (git answers in that order): each
 * header must name the next one (compared in place), and that name is handed over, so no string is
 * made per header.
 */
export function scanBatchFile(
  file: BlobFile,
  size: number,
  onObject: (sha: string, content: BlobContent) => void,
  chunkBytes: number = SCAN_CHUNK_BYTES,
  names?: readonly string[],
): boolean {
  const capacity = Math.min(size, Math.max(chunkBytes, MAX_HEADER_BYTES + BINARY_SNIFF_BYTES));
  // Nothing decodes a stored blob while the scan runs, so it may use the scratch buffer.
  const buffer = scratch(capacity);
  /**
   * Whether a NUL byte lies in `buffer` between `from` and `to`. Texts hold none, so one search
   * (to the end of the buffer) usually serves every object of a fill: `nulAt` is the first NUL at
   * or after where it was last searched from, -1 for none. No view of the buffer is made per
   * object: at 20,000 objects, three views each were much of the scan's garbage.
   */
  const NOT_SEARCHED = -2;
  let nulAt = NOT_SEARCHED;
  /** `buffer` holds the file from `base`, `filled` bytes of it. */
  let base = 0;
  let filled = 0;
  const nulBetween = (from: number, to: number) => {
    if (nulAt === NOT_SEARCHED || (nulAt >= 0 && nulAt < from)) nulAt = buffer.indexOf(0, from);
    return nulAt >= from && nulAt < to;
  };
  /** Makes `buffer` hold `length` bytes of the file from `from` (within the file). */
  const hold = (from: number, length: number) => {
    if (from >= base && from + length <= base + filled) return;
    filled = Math.min(capacity, size - from);
    file.readInto(buffer, from, filled);
    base = from;
    nulAt = NOT_SEARCHED;
  };
  let stored = false;
  let position = 0;
  let count = 0;
  /** The last head decoded: cards rendered together share their first line, so one string serves them. */
  let lastHead = "";
  while (position < size) {
    const headerBytes = Math.min(MAX_HEADER_BYTES, size - position);
    hold(position, headerBytes);
    const at = position - base;
    // The header's LF, searched in place: it passes the header only when the header is malformed
    // (then it throws), and never passes the buffer's end.
    const lf = buffer.indexOf(0x0a, at) - at;
    if (lf < 0 || lf >= headerBytes)
      throw malformed("cat-file", JSON.stringify(buffer.toString("latin1", at, at + Math.min(80, headerBytes))));
    const length = objectSize(buffer, at, at + lf);
    const sha =
      names === undefined ? buffer.toString("latin1", at, buffer.indexOf(0x20, at)) : nameAt(buffer, at, names, count);
    count++;
    const start = position + lf + 1;
    // The content and the line feed after it.
    if (start + length + 1 > size) throw malformed("cat-file", "truncated object");
    const seen = Math.min(length, BINARY_SNIFF_BYTES);
    hold(start, seen);
    const from = start - base;
    if (nulBetween(from, from + seen)) onObject(sha, BINARY_CONTENT);
    else if (length <= SMALL_TEXT_BYTES) onObject(sha, buffer.toString("utf8", from, from + length));
    else {
      // The first line: its LF (within the head's bytes), searched in place. The record's own LF
      // follows the content, so the search ends within this object when the buffer holds all of it,
      // and at the buffer's end when not (at most once per fill: the next object starts a new one).
      const lineEnd = buffer.indexOf(0x0a, from) - from;
      const exact = lineEnd >= 0 && lineEnd < HEAD_BYTES;
      const headEnd = exact ? lineEnd + 1 : HEAD_BYTES;
      if (!asciiEquals(buffer, from, headEnd, lastHead)) lastHead = buffer.toString("utf8", from, from + headEnd);
      const head = lastHead;
      onObject(sha, new StoredBlob(file, start, length, bytesBlank(buffer, length, from, from + seen), head, exact));
      stored = true;
    }
    position = start + length + 1;
  }
  if (names !== undefined && count !== names.length) {
    throw malformed("cat-file", `${count} object(s) where ${names.length} were asked for`);
  }
  return stored;
}

/**
 * Whether the `length` bytes at `from` are ASCII and spell `text` (so decoding them gives `text`):
 * a byte of 0x80 or more never counts as equal, whatever `text` holds there.
 */
function asciiEquals(buffer: Buffer, from: number, length: number, text: string): boolean {
  if (text.length !== length) return false;
  for (let at = 0; at < length; at++) {
    const byte = buffer[from + at]!;
    if (byte >= 0x80 || byte !== text.charCodeAt(at)) return false;
  }
  return true;
}

/** `names[index]`, once the header at `start` is checked to name it (in place); else git answered out of order. */
function nameAt(buffer: Buffer, start: number, names: readonly string[], index: number): string {
  const name = names[index];
  const space = buffer.indexOf(0x20, start);
  let same = name !== undefined && space - start === name.length;
  for (let at = 0; same && at < name!.length; at++) same = buffer[start + at] === name!.charCodeAt(at);
  if (!same) {
    const got = buffer.toString("latin1", start, space < 0 ? start + 80 : space);
    throw malformed("cat-file", `object ${got} where ${name ?? "nothing more"} was asked for`);
  }
  return name!;
}

/**
 * The size an object header "<sha> <type> <size>" in `buffer` from `start` to `end` gives, read in
 * place (no string per header); "<name> missing" throws, and so does a header without a size.
 */
function objectSize(buffer: Buffer, start: number, end: number): number {
  const first = buffer.indexOf(0x20, start);
  const last = buffer.lastIndexOf(0x20, end - 1);
  const missing = last - first === 8 && buffer.toString("latin1", first + 1, last) === "missing";
  if (first < 0 || first >= end || last <= first || missing) {
    const line = buffer.toString("latin1", start, end);
    const space = line.indexOf(" ");
    throw missingObject((space < 0 ? line : line.slice(0, space)) || "?");
  }
  let size = 0;
  for (let at = last + 1; at < end; at++) {
    const digit = buffer[at]! - 0x30;
    if (digit < 0 || digit > 9) throw malformed("cat-file", `size ${buffer.toString("latin1", last + 1, end)}`);
    size = size * 10 + digit;
  }
  if (last + 1 === end || !Number.isSafeInteger(size)) {
    throw malformed("cat-file", `size ${buffer.toString("latin1", last + 1, end)}`);
  }
  return size;
}
