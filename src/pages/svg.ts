/**
 * Diagrams drawn by the server as SVG (no script, no other origin): a workflow with the path a task
 * took highlighted, and the graph of who waits on whom. Labels are escaped like every page text;
 * colours come from the stylesheet's classes.
 */
import { text } from "./html.js";

const BOX_W = 150;
const BOX_H = 32;
const GAP_X = 40;
const GAP_Y = 28;
const PAD = 12;

export interface Edge {
  readonly from: string;
  readonly to: string;
}

interface Placed {
  readonly name: string;
  readonly x: number;
  readonly y: number;
}

function label(name: string): string {
  const short = name.length > 20 ? `${name.slice(0, 19)}…` : name;
  return text(short);
}

function box(node: Placed, taken: boolean, kind: string): string {
  return (
    `<g class="${kind}${taken ? " taken" : ""}"><title>${text(node.name)}</title>` +
    `<rect x="${node.x}" y="${node.y}" width="${BOX_W}" height="${BOX_H}" rx="6"></rect>` +
    `<text x="${node.x + BOX_W / 2}" y="${node.y + BOX_H / 2 + 4}" text-anchor="middle">${label(node.name)}</text></g>`
  );
}

function arrow(from: Placed, to: Placed, taken: boolean, key: string): string {
  const [x1, y1] = [from.x + BOX_W / 2, from.y + BOX_H / 2];
  const [x2, y2] = [to.x + BOX_W / 2, to.y + BOX_H / 2];
  const length = Math.hypot(x2 - x1, y2 - y1) || 1;
  // Stop at the target box's border (approximately), so the arrowhead shows.
  const cut = Math.min(length / 2, Math.abs(x2 - x1) > Math.abs(y2 - y1) ? BOX_W / 2 + 4 : BOX_H / 2 + 4);
  const ex = x2 - ((x2 - x1) / length) * cut;
  const ey = y2 - ((y2 - y1) / length) * cut;
  return `<line${taken ? ' class="taken"' : ""} x1="${x1}" y1="${y1}" x2="${ex.toFixed(1)}" y2="${ey.toFixed(1)}" marker-end="url(#${key})"></line>`;
}

function svg(width: number, height: number, title: string, key: string, content: string): string {
  const w = Math.max(width, BOX_W + 2 * PAD);
  const h = Math.max(height, BOX_H + 2 * PAD);
  return (
    `<svg class="diagram" xmlns="http://www.w3.org/2000/svg" role="img" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<title>${text(title)}</title>` +
    `<defs><marker id="${key}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"></path></marker></defs>` +
    `${content}</svg>`
  );
}

/** The shortest path from `from` to `to` over the edges (breadth first); `[from]` when equal. */
export function pathThrough(edges: readonly Edge[], from: string, to: string): string[] | undefined {
  if (from === to) return [from];
  const previous = new Map<string, string>([[from, from]]);
  const queue = [from];
  for (let index = 0; index < queue.length; index++) {
    const state = queue[index]!;
    for (const edge of edges) {
      if (edge.from !== state || previous.has(edge.to)) continue;
      previous.set(edge.to, state);
      if (edge.to === to) {
        const path = [to];
        while (path[0] !== from) path.unshift(previous.get(path[0]!)!);
        return path;
      }
      queue.push(edge.to);
    }
  }
  return undefined;
}

/**
 * The workflow's states as boxes, in its order, five to a row, with the path taken drawn as
 * arrows between highlighted boxes. A state on the path is a `g.state.taken`. `key` names the
 * arrowhead, unique on a page that draws several diagrams (a safe id: letters, digits, dashes).
 */
export function workflowDiagram(
  states: readonly string[],
  path: readonly string[],
  title: string,
  key = "arrow",
): string {
  const columns = Math.min(5, Math.max(1, states.length));
  const placed = new Map<string, Placed>();
  states.forEach((name, index) => {
    const x = PAD + (index % columns) * (BOX_W + GAP_X);
    const y = PAD + Math.floor(index / columns) * (BOX_H + GAP_Y);
    placed.set(name, { name, x, y });
  });
  const onPath = new Set(path);
  const boxes = [...placed.values()].map((node) => box(node, onPath.has(node.name), "state"));
  const lines: string[] = [];
  for (let index = 1; index < path.length; index++) {
    const from = placed.get(path[index - 1]!);
    const to = placed.get(path[index]!);
    if (from && to) lines.push(arrow(from, to, true, key));
  }
  const rows = Math.ceil(states.length / columns);
  return svg(
    PAD * 2 + columns * BOX_W + (columns - 1) * GAP_X,
    PAD * 2 + rows * BOX_H + (rows - 1) * GAP_Y,
    title,
    key,
    lines.join("") + boxes.join(""),
  );
}

/** Depth of each node along the waits-on edges (longest chain, cycles cut). */
function levels(nodes: readonly string[], edges: readonly Edge[]): Map<string, number> {
  const out = new Map<string, number>(nodes.map((node) => [node, 0]));
  for (let round = 0; round < nodes.length; round++) {
    let changed = false;
    for (const edge of edges) {
      const next = (out.get(edge.from) ?? 0) + 1;
      if (next > (out.get(edge.to) ?? 0) && next < nodes.length) {
        out.set(edge.to, next);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return out;
}

/**
 * Who waits on whom: one box per task, an arrow from the waiting task to the task it waits on,
 * columns by depth of the chain. Each task is a `g.task`.
 */
export function waitsOnGraph(edges: readonly Edge[], title: string, key = "waits-arrow"): string {
  const nodes = [...new Set(edges.flatMap((edge) => [edge.from, edge.to]))];
  const depth = levels(nodes, edges);
  const rows = new Map<number, number>();
  const placed = new Map<string, Placed>();
  for (const name of nodes) {
    const column = depth.get(name) ?? 0;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    placed.set(name, { name, x: PAD + column * (BOX_W + GAP_X), y: PAD + row * (BOX_H + GAP_Y / 2) });
  }
  const lines = edges.map((edge) => arrow(placed.get(edge.from)!, placed.get(edge.to)!, false, key));
  const columns = Math.max(1, ...[...rows.keys()].map((column) => column + 1));
  const height = Math.max(1, ...rows.values());
  return svg(
    PAD * 2 + columns * BOX_W + (columns - 1) * GAP_X,
    PAD * 2 + height * BOX_H + (height - 1) * (GAP_Y / 2),
    title,
    key,
    lines.join("") + [...placed.values()].map((node) => box(node, false, "task")).join(""),
  );
}
