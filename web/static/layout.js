// A small force-directed layout for the graph view: repulsion between every
// pair of nodes, springs along edges, a pull to the centre. Deterministic
// (no randomness) so that the same graph is drawn the same way.

export function layout(nodes, edges, { iterations = 250, width = 800, height = 560 } = {}) {
  const n = nodes.length;
  if (!n) return;
  const index = new Map(nodes.map((nd, i) => [nd.id, i]));
  nodes.forEach((nd, i) => {
    if (nd.x === undefined) {
      const a = i * 2.399963; // golden angle: spread new nodes evenly
      const r = 40 + 18 * Math.sqrt(i);
      const px = nd.parent && index.has(nd.parent) ? nodes[index.get(nd.parent)] : null;
      nd.x = (px && px.x !== undefined ? px.x : width / 2) + r * Math.cos(a);
      nd.y = (px && px.y !== undefined ? px.y : height / 2) + r * Math.sin(a);
    }
  });
  const links = edges.map((e) => [index.get(e.source), index.get(e.target)]).filter(([a, b]) => a !== undefined && b !== undefined && a !== b);
  const ideal = 110;
  for (let it = 0; it < iterations; it++) {
    const cool = 1 - it / iterations;
    const fx = new Float64Array(n);
    const fy = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        let dx = nodes[i].x - nodes[j].x;
        let dy = nodes[i].y - nodes[j].y;
        let d2 = dx * dx + dy * dy;
        if (d2 < 0.01) { dx = (i - j) * 0.1; dy = 0.1; d2 = dx * dx + dy * dy; }
        const f = (ideal * ideal) / d2;
        fx[i] += dx * f * 0.05; fy[i] += dy * f * 0.05;
        fx[j] -= dx * f * 0.05; fy[j] -= dy * f * 0.05;
      }
    }
    for (const [a, b] of links) {
      const dx = nodes[b].x - nodes[a].x;
      const dy = nodes[b].y - nodes[a].y;
      const d = Math.sqrt(dx * dx + dy * dy) || 1;
      const f = (d - ideal) * 0.05;
      fx[a] += (dx / d) * f * 2; fy[a] += (dy / d) * f * 2;
      fx[b] -= (dx / d) * f * 2; fy[b] -= (dy / d) * f * 2;
    }
    for (let i = 0; i < n; i++) {
      fx[i] += (width / 2 - nodes[i].x) * 0.01;
      fy[i] += (height / 2 - nodes[i].y) * 0.01;
      const max = 20 * cool + 0.5;
      nodes[i].x += Math.max(-max, Math.min(max, fx[i]));
      nodes[i].y += Math.max(-max, Math.min(max, fy[i]));
    }
  }
}

// bounds returns the box around the nodes, padded.
export function bounds(nodes, pad = 60) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const nd of nodes) { x0 = Math.min(x0, nd.x); y0 = Math.min(y0, nd.y); x1 = Math.max(x1, nd.x); y1 = Math.max(y1, nd.y); }
  if (!Number.isFinite(x0)) return { x: 0, y: 0, w: 800, h: 560 };
  // A small graph is not blown up: the box is at least 720 × 480.
  const w = Math.max(720, x1 - x0 + 2 * pad);
  const h = Math.max(480, y1 - y0 + 2 * pad);
  return { x: (x0 + x1) / 2 - w / 2, y: (y0 + y1) / 2 - h / 2, w, h };
}
