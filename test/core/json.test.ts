import { describe, expect, it } from "vitest";
import { deepEqual, syntaxErrorOffset } from "../../src/core/json.js";

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
