import { describe, expect, it } from "vitest";
import {
  deepEqual,
  jsonLines,
  jsonPositionOf,
  jsonPositions,
  positionKey,
  syntaxErrorOffset,
} from "../../src/core/json.js";

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
