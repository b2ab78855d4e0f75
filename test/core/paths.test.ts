import { describe, expect, it } from "vitest";
import { isSuspiciousPath } from "../../src/core/kernel/paths.js";

/** The rule as it reads: absolute, a backslash, or a segment that is empty, `.` or `..`. */
const bySegments = (path: string) =>
  path.startsWith("/") ||
  path.includes("\\") ||
  path.split("/").some((part) => part === ".." || part === "." || part === "");

/** Every string of up to `length` characters over `alphabet`, shortest first. */
function* strings(alphabet: readonly string[], length: number): Generator<string> {
  let level = [""];
  for (let size = 0; size <= length; size++) {
    yield* level;
    if (size < length) level = level.flatMap((shorter) => alphabet.map((char) => shorter + char));
  }
}

describe("isSuspiciousPath", () => {
  it("agrees with splitting the path into segments, for every short path over the characters that matter", () => {
    let checked = 0;
    for (const path of strings(["a", "/", ".", "\\", "b"], 7)) {
      checked++;
      if (isSuspiciousPath(path) !== bySegments(path)) expect.fail(`differs on ${JSON.stringify(path)}`);
    }
    expect(checked).toBe((5 ** 8 - 1) / 4);
  });

  it.each([
    ["state/evidence/T1.md", false],
    ["state/evidence/..md", false],
    ["state/.hidden/x", false],
    ["../etc/passwd", true],
    ["state/evidence/../../x", true],
    ["state/./x", true],
    ["state//x", true],
    ["state/x/", true],
    ["/abs", true],
    ["a\\b", true],
    ["", true],
    ["..", true],
    [".", true],
  ])("%j is suspicious: %s", (path, expected) => {
    expect(isSuspiciousPath(path)).toBe(expected);
  });
});
