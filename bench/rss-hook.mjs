/**
 * Loaded with `node --import` by `peakRss` (bench/cpu.mjs): at exit, writes the process's peak
 * resident set size in bytes to the file named by BENCH_RSS_FILE. Not a benchmark of its own.
 */
import { writeFileSync } from "node:fs";

const file = process.env.BENCH_RSS_FILE;
if (file) {
  process.on("exit", () => writeFileSync(file, String(process.resourceUsage().maxRSS * 1024)));
}
