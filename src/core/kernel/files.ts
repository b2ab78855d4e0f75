/**
 * What a file of a snapshot is (`FileKind`), decided from its git mode, its size and its first
 * bytes: one classifier for every reader (a commit's tree, the work tree, a change about to be
 * written), with the size limit that applies when the config sets none. Pure: readers hand it what
 * they know, it reads nothing.
 */
import type { FileEntry } from "./types.js";

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
   * What was read: the bytes, their UTF-8 text, or `BINARY_CONTENT`; for a symlink, its target.
   * `undefined`: not read (a file is then `oversized`).
   */
  readonly content?: string | Uint8Array | typeof BINARY_CONTENT;
}

/**
 * The snapshot entry of a file: a `submodule` by its mode, a `symlink` (with its target when read),
 * `oversized` above `maxBytes` or when not read, `binary` with a NUL byte among the first
 * `BINARY_SNIFF_BYTES`, else a `file` with its UTF-8 text.
 */
export function classifyFile(facts: FileFacts, maxBytes: number = DEFAULT_MAX_FILE_BYTES): FileEntry {
  const { path, size, content } = facts;
  const oid = facts.oid !== undefined ? { oid: facts.oid } : {};
  if (facts.mode === MODE_SUBMODULE) return { path, kind: "submodule", size: 0, ...oid };
  if (facts.mode === MODE_SYMLINK) {
    const target = typeof content === "string" ? content : content instanceof Uint8Array ? utf8(content) : undefined;
    return target === undefined
      ? { path, kind: "symlink", size, ...oid }
      : { path, kind: "symlink", size, target, ...oid };
  }
  if (size > maxBytes || content === undefined) return { path, kind: "oversized", size, ...oid };
  if (content === BINARY_CONTENT) return { path, kind: "binary", size, ...oid };
  if (content instanceof Uint8Array) {
    if (bytesLookBinary(content)) return { path, kind: "binary", size, ...oid };
    return { path, kind: "file", size, text: utf8(content), ...oid };
  }
  if (textLooksBinary(content)) return { path, kind: "binary", size, ...oid };
  return { path, kind: "file", size, text: content, ...oid };
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
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
}
