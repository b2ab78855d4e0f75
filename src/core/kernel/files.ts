/**
 * What a file of a snapshot is (`FileKind`), decided from its git mode, its size and its first
 * bytes: one classifier for every reader (a commit's tree, the work tree, a change about to be
 * written), with the size limit that applies when the config sets none. Pure: readers hand it what
 * they know, it reads nothing.
 */
import type { FileEntry, FileKind } from "./types.js";

/** Files above this many bytes are `oversized` and never read, unless `limits.max_file_bytes` says otherwise. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

/** A NUL among this many leading bytes makes a file binary (the window git looks at). */
export const BINARY_SNIFF_BYTES = 8000;

/** git's modes: a regular file, a symbolic link, a submodule (a commit recorded in a tree). */
export const MODE_FILE = "100644";
export const MODE_SYMLINK = "120000";
export const MODE_SUBMODULE = "160000";

/** Content a reader already found binary while it streamed the bytes (it keeps no text of it). */
export const BINARY_CONTENT: unique symbol = Symbol("binary");

export interface FileFacts {
  readonly path: string;
  /** git's mode of the entry (`MODE_FILE` for any regular file, executable or not). */
  readonly mode: string;
  /** Size in bytes (for a symlink: of its target). */
  readonly size: number;
  /** The content id, carried over to the entry when known. */
  readonly oid?: string;
  /**
   * What was read: the bytes, their UTF-8 text, a text kept outside memory (`StoredText`), or
   * `BINARY_CONTENT`; for a symlink, its target. `undefined`: not read (a file is then `oversized`).
   */
  readonly content?: string | Uint8Array | StoredText | typeof BINARY_CONTENT;
}

/**
 * A text a reader keeps outside memory (git's blobs stay in the file git wrote them to): what it
 * learnt of the bytes while they passed, and a way to read them all. A reader of many files (an
 * audit reads every artifact of every task, most only for their kind and size) hands these over,
 * and the whole text is read only when a rule reads `text`.
 */
export interface StoredText {
  /** Whether a NUL byte is among the first `BINARY_SNIFF_BYTES` bytes (`bytesLookBinary`). */
  readonly binary: boolean;
  /** Whether the text is only white space, or `undefined` when the bytes alone cannot tell (`bytesBlank`). */
  readonly blank: boolean | undefined;
  /** The text's first bytes decoded: up to its first line feed (included), or its first `HEAD_BYTES`. */
  readonly head: string;
  /** Whether `head` ends at a line feed or at the end of the text (else its last character may be cut). */
  readonly headExact: boolean;
  /** Reads and decodes the whole text: invalid sequences replaced, a leading byte-order mark kept. */
  decode(): string;
}

/** At most this many bytes of a stored text are decoded into its `head`. */
export const HEAD_BYTES = 256;

/**
 * Whether these bytes (the start of a text of `size` bytes, or all of it) are only white space:
 * `true` or `false` when the bytes tell, `undefined` when a byte past ASCII comes first (Unicode's
 * spaces count as white space, so the text must tell) or the white space runs past what was seen.
 * With `start` and `end`, the bytes are that part of `bytes` (no view of them needed).
 */
export function bytesBlank(
  bytes: Uint8Array,
  size: number,
  start: number = 0,
  end: number = bytes.length,
): boolean | undefined {
  for (let at = start; at < end; at++) {
    const byte = bytes[at]!;
    if (byte === 0x20 || (byte >= 0x09 && byte <= 0x0d)) continue;
    return byte < 0x80 ? false : undefined;
  }
  return end - start >= size ? true : undefined;
}

/**
 * The snapshot entry of a file: a `submodule` by its mode, a `symlink` (with its target when read),
 * `oversized` above `maxBytes` or when not read, `binary` with a NUL byte among the first
 * `BINARY_SNIFF_BYTES`, else a `file` with its UTF-8 text.
 */
export function classifyFile(facts: FileFacts, maxBytes: number = DEFAULT_MAX_FILE_BYTES): FileEntry {
  const { path, size, content, oid } = facts;
  if (facts.mode === MODE_SUBMODULE) return entry(path, "submodule", 0, oid);
  if (facts.mode === MODE_SYMLINK) {
    const target =
      typeof content === "string"
        ? content
        : content instanceof Uint8Array
          ? utf8(content)
          : isStored(content)
            ? content.decode()
            : undefined;
    const link = entry(path, "symlink", size, oid);
    return target === undefined ? link : { ...link, target };
  }
  if (size > maxBytes || content === undefined) return entry(path, "oversized", size, oid);
  if (content === BINARY_CONTENT) return entry(path, "binary", size, oid);
  if (isStored(content)) {
    return content.binary ? entry(path, "binary", size, oid) : new StoredTextFile(path, size, content, oid);
  }
  const text = content instanceof Uint8Array ? (bytesLookBinary(content) ? undefined : utf8(content)) : content;
  if (text === undefined || textLooksBinary(text)) return entry(path, "binary", size, oid);
  return oid === undefined ? { path, kind: "file", size, text } : { path, kind: "file", size, text, oid };
}

/** An entry without text, with `oid` only when known (a reader of many files builds one per file). */
function entry(path: string, kind: FileKind, size: number, oid: string | undefined): FileEntry {
  return oid === undefined ? { path, kind, size } : { path, kind, size, oid };
}

function isStored(content: FileFacts["content"]): content is StoredText {
  return typeof content === "object" && !(content instanceof Uint8Array);
}

/** Texts at least this long are kept once read (a ledger is parsed, then searched for positions). */
const KEEP_TEXT_LENGTH = 64 * 1024;

/** Where a `StoredTextFile` keeps its stored text: an own property no one lists or copies. */
const STORED: unique symbol = Symbol("stored");

/**
 * `text` of a `StoredTextFile`: an own, listed property (spread, `Object.keys` and JSON see it),
 * read when a rule reads it.
 */
const TEXT_PROPERTY: PropertyDescriptor = {
  get(this: StoredTextFile): string {
    const text = this[STORED].decode();
    // A long text is kept: it is in memory now anyway, and reading it again costs more than keeping it.
    if (text.length >= KEEP_TEXT_LENGTH) Object.defineProperty(this, "text", { value: text, enumerable: true });
    return text;
  },
  enumerable: true,
  configurable: true,
};

/**
 * A `file` entry whose text stays where the reader keeps it until a rule reads `text`: what no rule
 * reads is never read. A short text is read again on every read, so what a rule reads once is
 * garbage soon after; a long one is kept from its first read.
 */
class StoredTextFile implements FileEntry {
  readonly kind = "file";
  readonly path: string;
  readonly size: number;
  declare readonly text: string;
  declare readonly oid?: string;
  declare readonly [STORED]: StoredText;

  constructor(path: string, size: number, stored: StoredText, oid: string | undefined) {
    this.path = path;
    this.size = size;
    Object.defineProperty(this, STORED, { value: stored });
    Object.defineProperty(this, "text", TEXT_PROPERTY);
    if (oid !== undefined) (this as { oid?: string }).oid = oid;
  }

  /** Whether the text is only white space; reads it only when its bytes cannot tell. */
  blank(): boolean {
    return this[STORED].blank ?? !/\S/.test(this.text);
  }

  /** Whether the text starts with `prefix`; reads it only when its head cannot tell. */
  startsWith(prefix: string): boolean {
    const { head, headExact } = this[STORED];
    // The head is the exact start of the text, but for a character its last bytes may have cut.
    const known = headExact ? head : head.slice(0, -1);
    if (prefix.length <= known.length) return known.startsWith(prefix);
    // Both start the text: the shorter starts the longer, or the text does not start with `prefix`.
    if (!prefix.startsWith(known)) return false;
    return this.text.startsWith(prefix);
  }
}

/** Whether an entry is a text `file` starting with `prefix` (for a long file: without decoding all of it). */
export function fileStartsWith(entry: FileEntry, prefix: string): boolean {
  if (entry.kind !== "file") return false;
  if (entry instanceof StoredTextFile) return entry.startsWith(prefix);
  return entry.text !== undefined && entry.text.startsWith(prefix);
}

/** A file that says nothing: no bytes, or only white space. */
export function isEmptyFile(entry: FileEntry): boolean {
  if (entry.size === 0) return true;
  if (entry instanceof StoredTextFile) return entry.blank();
  return entry.kind === "file" && entry.text !== undefined && !/\S/.test(entry.text);
}

/** Whether a NUL byte is among the first `BINARY_SNIFF_BYTES` of these bytes. */
export function bytesLookBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Whether a NUL is among the first `BINARY_SNIFF_BYTES` bytes of this text written as UTF-8. */
export function textLooksBinary(text: string): boolean {
  const nul = text.indexOf("\0");
  // Every character takes at least one byte: a NUL past this many characters is past the window.
  if (nul < 0 || nul >= BINARY_SNIFF_BYTES) return false;
  return utf8Length(text, nul) < BINARY_SNIFF_BYTES;
}

/** The UTF-8 length of the first `end` UTF-16 code units of `text`. */
function utf8Length(text: string, end: number): number {
  let bytes = 0;
  for (let i = 0; i < end; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < end && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit < 0xe000;
}

/** UTF-8 bytes as text, invalid sequences replaced and a leading byte-order mark kept. */
function utf8(bytes: Uint8Array): string {
  return UTF8.decode(bytes);
}
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });
