/**
 * JSON files validated by zod, with errors that name the JSON path and the line. Lines come from a
 * YAML parse of the same text (JSON is YAML), done only on the error path, so valid files cost one
 * `JSON.parse`.
 */
import { LineCounter, isNode, parseDocument } from "yaml";
import type * as z from "zod";

export interface JsonIssue {
  /** `$.tasks[3].id` style path; `$` for the whole document. */
  readonly path: string;
  readonly line?: number;
  readonly message: string;
}

export type JsonResult<T> = { ok: true; value: T } | { ok: false; issues: JsonIssue[] };

/** Deeper JSON or YAML than this is refused before it is parsed: no file taskgate reads needs 10 levels. */
export const MAX_NESTING = 64;

/**
 * Where a JSON text first nests deeper than `max` arrays and objects (strings skipped), as
 * `{depth, line}`, or `undefined`. One linear scan, no recursion, so it is safe on any input.
 */
export function tooDeep(text: string, max = MAX_NESTING): { line: number } | undefined {
  let depth = 0;
  let line = 1;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x0a) line++;
    else if (code === 0x22) {
      for (at++; at < text.length && text.charCodeAt(at) !== 0x22; at++) {
        if (text.charCodeAt(at) === 0x5c) at++;
        else if (text.charCodeAt(at) === 0x0a) line++;
      }
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return { line };
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return undefined;
}

/** The message for a text nested too deeply. */
export function nestingMessage(max = MAX_NESTING): string {
  return `nested more than ${max} levels deep; taskgate reads no deeper structure`;
}

export function parseJsonFile<S extends z.ZodType>(text: string, schema: S, maxIssues = 5): JsonResult<z.infer<S>> {
  const deep = tooDeep(text);
  if (deep) return { ok: false, issues: [{ path: "$", line: deep.line, message: nestingMessage() }] };
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const line = lineOfSyntaxError(text, message);
    return {
      ok: false,
      issues: [{ path: "$", ...(line !== undefined && { line }), message: `invalid JSON: ${message}` }],
    };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues.slice(0, maxIssues);
  const locate = lineLocator(text);
  return {
    ok: false,
    issues: issues.map((issue) => {
      const line = locate(issue.path as PropertyKey[]);
      return {
        path: jsonPath(issue.path as PropertyKey[]),
        ...(line !== undefined && { line }),
        message: issue.message,
      };
    }),
  };
}

export function jsonPath(path: readonly PropertyKey[]): string {
  return `$${path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("")}`;
}

/** The line of a JSON syntax error: from the engine's position when it gives one, else from a scan. */
export function lineOfSyntaxError(text: string, message: string): number | undefined {
  const position = /position (\d+)/.exec(message);
  const offset = position ? Number(position[1]) : syntaxErrorOffset(text);
  return offset === undefined ? undefined : text.slice(0, offset).split("\n").length;
}

/**
 * Where a JSON text first goes wrong, by a small recursive-descent scan (the engine's messages do
 * not always say). `undefined` when the scan finds nothing wrong.
 */
export function syntaxErrorOffset(text: string): number | undefined {
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at]!)) at++;
  };
  class Stop extends Error {}
  const fail = (): never => {
    throw new Stop();
  };
  const literal = (word: string) => (text.startsWith(word, at) ? (at += word.length) : fail());
  const string = () => {
    at++;
    while (at < text.length && text[at] !== '"') {
      if (text.charCodeAt(at) < 0x20) fail();
      at += text[at] === "\\" ? 2 : 1;
    }
    if (at >= text.length) fail();
    at++;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!match) fail();
    at += match![0].length;
  };
  const value = (depth: number): void => {
    if (depth > 2000) fail();
    space();
    const char = text[at];
    if (char === "{") {
      at++;
      space();
      if (text[at] === "}") return void at++;
      for (;;) {
        space();
        if (text[at] !== '"') fail();
        string();
        space();
        if (text[at] !== ":") fail();
        at++;
        value(depth + 1);
        space();
        if (text[at] === ",") at++;
        else if (text[at] === "}") return void at++;
        else fail();
      }
    }
    if (char === "[") {
      at++;
      space();
      if (text[at] === "]") return void at++;
      for (;;) {
        value(depth + 1);
        space();
        if (text[at] === ",") at++;
        else if (text[at] === "]") return void at++;
        else fail();
      }
    }
    if (char === '"') return string();
    if (char === "t") return void literal("true");
    if (char === "f") return void literal("false");
    if (char === "n") return void literal("null");
    return number();
  };
  try {
    value(0);
    space();
    return at < text.length ? at : undefined;
  } catch (error) {
    if (error instanceof Stop) return Math.min(at, text.length);
    throw error;
  }
}

/** Finds the line of the deepest existing node on a path, parsing the text once. */
export function lineLocator(text: string): (path: readonly PropertyKey[]) => number | undefined {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  return (path) => {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth) as unknown[], true);
      if (isNode(node) && node.range) return counter.linePos(node.range[0]).line;
    }
    return undefined;
  };
}

/** Structural equality of parsed JSON values, without serialising them or allocating key lists. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!deepEqual(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    if (!Object.hasOwn(right, key) || !deepEqual(left[key], right[key])) return false;
    keys++;
  }
  for (const key in right) if (Object.hasOwn(right, key)) keys--;
  return keys === 0;
}

/** A key for a JSON path in `jsonPositions`. */
export function positionKey(path: readonly (string | number)[]): string {
  return path.map((part) => (typeof part === "number" ? `\u0000#${part}` : `\u0000.${part}`)).join("");
}

/**
 * Where each value of a valid JSON text starts, for every path up to `maxDepth` deep (an object
 * member at the offset of its key): one linear scan, deeper values skipped without recording.
 * Used to name lines in messages without a parse that keeps positions.
 */
export function jsonPositions(text: string, maxDepth: number): Map<string, number> {
  const out = new Map<string, number>();
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const space = () => {
    while (at < text.length) {
      const code = text.charCodeAt(at);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
      at++;
    }
  };
  const skipString = () => {
    at++;
    while (at < text.length && text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
    at++;
  };
  /** Skips one value of any depth without recursion. */
  const skipValue = () => {
    let depth = 0;
    do {
      space();
      const char = text[at];
      if (char === '"') skipString();
      else if (char === "{" || char === "[") {
        depth++;
        at++;
      } else if (char === "}" || char === "]") {
        depth--;
        at++;
      } else if (char === "," || char === ":") at++;
      else {
        while (at < text.length && !',:]} \t\r\n"'.includes(text[at]!)) at++;
      }
    } while (depth > 0 && at < text.length);
  };
  const value = (path: (string | number)[], start: number): void => {
    space();
    out.set(positionKey(path), start >= 0 ? start : at);
    if (path.length >= maxDepth) return skipValue();
    const char = text[at];
    if (char === "{") {
      at++;
      for (;;) {
        space();
        if (text[at] === "}" || at >= text.length) return void at++;
        if (text[at] === ",") {
          at++;
          continue;
        }
        const keyStart = at;
        const close = text.indexOf('"', at + 1);
        skipString();
        let key: string;
        try {
          key = JSON.parse(text.slice(keyStart, at)) as string;
        } catch {
          key = text.slice(keyStart + 1, Math.max(keyStart + 1, close));
        }
        space();
        at++; // ':'
        value([...path, key], keyStart);
      }
    }
    if (char === "[") {
      at++;
      let index = 0;
      for (;;) {
        space();
        if (text[at] === "]" || at >= text.length) return void at++;
        if (text[at] === ",") {
          at++;
          continue;
        }
        value([...path, index++], -1);
      }
    }
    skipValue();
  };
  value([], -1);
  return out;
}
