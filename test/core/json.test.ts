import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  deepEqual,
  jsonLines,
  jsonPositionOf,
  jsonPositions,
  positionKey,
  syntaxErrorOffset,
  tooDeep,
} from "../../src/core/kernel/json.js";

describe("deepEqual", () => {
  it.each([
    [{ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: undefined }, false],
    [{ a: 1, b: 2 }, { a: 1 }, false],
    [[1, 2], { 0: 1, 1: 2 }, false],
    [{ a: [1, 2] }, { a: [1, 2, 3] }, false],
    ["1", 1, false],
    [null, {}, false],
  ])("%j vs %j → %s", (a, b, equal) => {
    expect(deepEqual(a, b)).toBe(equal);
    expect(deepEqual(b, a)).toBe(equal);
  });
});

describe("syntaxErrorOffset", () => {
  it("finds nothing wrong in valid JSON and the first bad offset otherwise", () => {
    expect(syntaxErrorOffset('{"a": [1, 2.5e3, "x\\"y", true, null]}')).toBeUndefined();
    expect(syntaxErrorOffset('{"a": 1,}')).toBe(8);
    expect(syntaxErrorOffset('{"a": tru}')).toBe(6);
    expect(syntaxErrorOffset("[1, 2")).toBe(5);
  });
});

describe("JSON positions for messages", () => {
  const ledger = [
    "{",
    '  "revision": 3,',
    '  "tasks": {',
    '    "T1": { "status": "todo", "history": [] },',
    '    "T\\u0032": {',
    '      "status": "in_progress",',
    '      "history": [',
    '        { "action": "claim", "by": "ann" },',
    '        { "action": "submit", "by": "ann" }',
    "      ]",
    "    },",
    '    "T1": {',
    '      "status": "done"',
    "    }",
    "  }",
    "}",
  ].join("\n");

  it("names the line of the deepest part of a path that exists, as the full index does", () => {
    const lines = jsonLines(ledger, 4);
    expect(lines(["tasks", "T2", "history", 1])).toBe(9);
    expect(lines(["tasks", "T2", "history", 7])).toBe(7); // no eighth entry: the history's line
    expect(lines(["tasks", "T2", "status"])).toBe(6);
    expect(lines(["tasks", "T9"])).toBe(3); // no such task: the tasks object
    expect(lines(["nothing"])).toBeUndefined();
  });

  it("points at the last of duplicate keys, the one JSON.parse keeps", () => {
    expect(JSON.parse(ledger).tasks.T1.status).toBe("done");
    expect(jsonLines(ledger, 4)(["tasks", "T1", "status"])).toBe(13);
    expect(jsonLines(ledger, 4)(["tasks", "T1"])).toBe(12);
  });

  it("gives the same lines by targeted scans and by the full index, however many lookups", () => {
    const tasks: Record<string, unknown> = {};
    for (let i = 0; i < 60; i++) tasks[`T${i}`] = { status: "todo", history: [{ by: `u${i}` }, { by: "x" }] };
    const text = JSON.stringify({ revision: 1, tasks }, null, 2);
    const index = jsonPositions(text, 4);
    const lineOf = (offset: number | undefined) =>
      offset === undefined ? undefined : text.slice(0, offset).split("\n").length;
    const lines = jsonLines(text, 4);
    // More lookups than the targeted ones: the locator switches to the index halfway.
    for (let i = 0; i < 60; i++) {
      for (const path of [
        ["tasks", `T${i}`, "history", 1],
        ["tasks", `T${i}`, "status"],
        ["tasks", `T${i}`],
      ]) {
        const want = lineOf(index.get(positionKey(path)));
        expect(lines(path), path.join(".")).toBe(want);
        expect(lineOf(jsonPositionOf(text, path)), path.join(".")).toBe(want);
      }
    }
  });
});

describe("JSON scanning over generated texts", () => {
  /**
   * The plain character-by-character nesting scan, as a reference; the line is the editor's (every
   * line feed before the bracket counts, even one a backslash escapes inside a broken string).
   */
  function referenceTooDeep(text: string, max: number): { line: number } | undefined {
    let depth = 0;
    for (let at = 0; at < text.length; at++) {
      const code = text.charCodeAt(at);
      if (code === 0x22) {
        for (at++; at < text.length && text.charCodeAt(at) !== 0x22; at++) {
          if (text.charCodeAt(at) === 0x5c) at++;
        }
      } else if (code === 0x5b || code === 0x7b) {
        if (++depth > max) return { line: text.slice(0, at).split("\n").length };
      } else if (code === 0x5d || code === 0x7d) depth--;
    }
    return undefined;
  }

  it("finds too deep nesting where a character-by-character scan does, on any text", () => {
    const piece = fc.constantFrom('"', "\\", "[", "]", "{", "}", "\n", "a", ",", ":", '\\"', "\\\\");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.integer({ min: 0, max: 4 }), (parts, max) => {
        const text = parts.join("");
        expect(tooDeep(text, max)).toEqual(referenceTooDeep(text, max));
      }),
      { numRuns: 3000 },
    );
  });

  it("skips whole values: every member found is where its key is written", () => {
    const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a"b', "x\\y", "[", "}"));
    const value = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.dictionary(key, value, { maxKeys: 4 }), { maxKeys: 5 }),
        fc.nat(3),
        (doc, indent) => {
          const text = JSON.stringify(doc, null, indent);
          const positions = jsonPositions(text, 2);
          for (const [outer, inner] of Object.entries(doc)) {
            expect(text.startsWith(JSON.stringify(outer), positions.get(positionKey([outer]))!)).toBe(true);
            for (const name of Object.keys(inner)) {
              const at = jsonPositionOf(text, [outer, name])!;
              expect(text.startsWith(JSON.stringify(name), at), `${outer}.${name}`).toBe(true);
              expect(positions.get(positionKey([outer, name]))).toBe(at);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
